import Classify
import TagIndex
print(ClassifyVersion.string)
