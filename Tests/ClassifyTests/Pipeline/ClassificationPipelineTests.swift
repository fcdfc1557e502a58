import Foundation
import Testing

@testable import Classify

/// The pipeline's bounds hold whatever a caller asks for.
@Suite struct ClassificationPipelineTests {
    @Test func jobsAreClampedToASaneRange() {
        let classifier = ImageClassifier(model: ShippedModel.model)
        #expect(ClassificationPipeline(classifier: classifier, jobs: 0).jobs == 1)
        #expect(ClassificationPipeline(classifier: classifier, jobs: -7).jobs == 1)
        #expect(ClassificationPipeline(classifier: classifier, jobs: 3).jobs == 3)
        // Int.max used to overflow computing the ordered window (jobs * 4) and trap.
        #expect(ClassificationPipeline(classifier: classifier, jobs: .max).jobs == ClassificationPipeline.maximumJobs)
    }

    @Test func hugeJobCountsStillDeliverEveryItemInOrder() async {
        let pipeline = ClassificationPipeline(classifier: ImageClassifier(model: ShippedModel.model), jobs: .max)
        var delivered: [Int] = []
        await pipeline.run(0..<1_000, ordered: true, work: { $0 * 2 }, consume: { item, output in
            #expect(output == item * 2)
            delivered.append(item)
        })
        #expect(delivered == Array(0..<1_000))
    }
}
