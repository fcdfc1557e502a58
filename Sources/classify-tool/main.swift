import Classify
import TagIndex

print(ModelLocator.defaultModelName)
