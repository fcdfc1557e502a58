import Foundation

/// The anchor boxes of a single-shot detector, generated as MediaPipe's `SsdAnchorsCalculator`
/// does (`mediapipe/calculators/tflite/ssd_anchors_calculator.cc`, read for its rules): for each
/// run of layers with the same stride, every cell of a `ceil(input / stride)` grid gets one
/// anchor per aspect ratio of each layer in the run (plus one interpolated anchor when
/// `interpolatedScaleAspectRatio > 0`), in row-major cell order. Anchor centers are
/// `((x + offsetX) / gridWidth, (y + offsetY) / gridHeight)`; with `fixedAnchorSize` every
/// anchor is 1 x 1 (the network regresses absolute sizes), otherwise its size comes from the
/// layer's scale and aspect ratio.
///
/// BlazeFace full range (`face_detection_full_range.pbtxt`): one layer of stride 4 on 192 x 192,
/// aspect ratio 1, no interpolated anchor, fixed size: 48 x 48 = 2,304 anchors.
struct SSDAnchorOptions: Sendable, Equatable {
    var inputWidth: Int
    var inputHeight: Int
    var minScale: Double
    var maxScale: Double
    var anchorOffsetX: Double = 0.5
    var anchorOffsetY: Double = 0.5
    var strides: [Int]
    var aspectRatios: [Double] = [1]
    /// The aspect ratio of one extra anchor per stride's layer with scale
    /// sqrt(scale * next scale); 0 for none.
    var interpolatedScaleAspectRatio: Double = 0
    var fixedAnchorSize: Bool = true

    /// BlazeFace full range, from MediaPipe's `face_detection.pbtxt` (min scale 0.1484375, max
    /// scale 0.75, offsets 0.5, aspect ratio 1, fixed size) and `face_detection_full_range.pbtxt`
    /// (192 x 192, one layer of stride 4, interpolated scale aspect ratio 0).
    static let blazeFaceFullRange = SSDAnchorOptions(
        inputWidth: 192, inputHeight: 192, minScale: 0.1484375, maxScale: 0.75, strides: [4], interpolatedScaleAspectRatio: 0)

    /// The scale of layer `index` of `count`: linear from `minScale` to `maxScale` (their mean
    /// when there is one layer).
    func scale(layer index: Int, count: Int) -> Double {
        count == 1 ? (minScale + maxScale) / 2 : minScale + (maxScale - minScale) * Double(index) / Double(count - 1)
    }
}

/// One anchor, normalized to the network input (0...1).
struct SSDAnchor: Sendable, Equatable {
    var centerX: Double
    var centerY: Double
    var width: Double
    var height: Double
}

extension SSDAnchor {
    /// Every anchor of `options`, in the order of the network's outputs.
    static func anchors(_ options: SSDAnchorOptions) -> [SSDAnchor] {
        var anchors: [SSDAnchor] = []
        let strides = options.strides
        var layer = 0
        while layer < strides.count {
            var sizes: [(width: Double, height: Double)] = []
            var last = layer
            while last < strides.count && strides[last] == strides[layer] {
                let scale = options.scale(layer: last, count: strides.count)
                for ratio in options.aspectRatios {
                    sizes.append((scale * ratio.squareRoot(), scale / ratio.squareRoot()))
                }
                if options.interpolatedScaleAspectRatio > 0 {
                    let next = last == strides.count - 1 ? 1 : options.scale(layer: last + 1, count: strides.count)
                    let interpolated = (scale * next).squareRoot(), ratio = options.interpolatedScaleAspectRatio.squareRoot()
                    sizes.append((interpolated * ratio, interpolated / ratio))
                }
                last += 1
            }
            let stride = strides[layer]
            let gridHeight = (options.inputHeight + stride - 1) / stride, gridWidth = (options.inputWidth + stride - 1) / stride
            for y in 0..<gridHeight {
                for x in 0..<gridWidth {
                    for size in sizes {
                        anchors.append(SSDAnchor(
                            centerX: (Double(x) + options.anchorOffsetX) / Double(gridWidth),
                            centerY: (Double(y) + options.anchorOffsetY) / Double(gridHeight),
                            width: options.fixedAnchorSize ? 1 : size.width,
                            height: options.fixedAnchorSize ? 1 : size.height))
                    }
                }
            }
            layer = last
        }
        return anchors
    }
}
