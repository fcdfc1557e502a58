import ClassifyTestSupport
import Foundation
import Testing
@testable import Classify

/// R-Net and O-Net run on batches of crops (`DetectorNetwork.runBatched`): a graph compiled for a
/// batch gives every item the outputs a run on that item alone gives, for full batches, a short
/// last batch, and one item; its dense layers run as one GEMM over the batch (whose blocking sums
/// in another order than one row's: the same values to float rounding, 1e-5).
struct BatchedNetworkTests {
    @Test(arguments: ["rnet", "onet"], [1, 5, DetectorNetwork.batchSize, DetectorNetwork.batchSize * 2 + 3])
    func aBatchGivesEachCropItsOwnOutputs(name: String, count: Int) throws {
        let model = ShippedFaceModel.mtcnn
        let network = name == "rnet" ? model.rnet : model.onet
        let size = network.description.input.height
        var random = SeededRandom(seed: UInt64(count))
        let inputs = (0..<count).map { _ in random.floats(size * size * 3, in: -1...1) }
        let batched = try network.runBatched(count: count, height: size, width: size) { index, buffer in
            buffer.update(from: inputs[index], count: inputs[index].count)
        }
        for (index, input) in inputs.enumerated() {
            let alone = try network.run(height: size, width: size) { _ = $0.update(fromContentsOf: input) }
            for (role, values) in alone {
                let item = Array(batched[role]![(index * values.count)..<((index + 1) * values.count)])
                #expect(maximumAbsoluteDifference(item, values) < 1e-5, "\(name) \(role) item \(index) of \(count)")
            }
        }
        #expect(batched.values.allSatisfy { $0.count % count == 0 })
    }

    @Test func denseLayersRunBatchedAndConvolutionsItemByItem() throws {
        let graph = try ShippedFaceModel.mtcnn.rnet.graph(height: 24, width: 24, batch: 4)
        #expect(graph.batch == 4)
        #expect(graph.operations.contains { $0 is any BatchedGraphOperation && $0.kindDescription.hasPrefix("FullyConnected") })
        #expect(graph.operations.contains { !($0 is any BatchedGraphOperation) && $0.kindDescription.hasPrefix("Conv2D") })
        let single = try ShippedFaceModel.mtcnn.rnet.graph(height: 24, width: 24)
        #expect(graph.plan.arenaCount >= 4 * single.plan.arenaCount - 4 * MemoryPlan.alignment * graph.shapes.count)
    }
}
