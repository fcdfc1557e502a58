import ClassifyIndexing
import Foundation

/// One status line on stderr, redrawn at most ten times a second: files done of total (or of found
/// so far while the walk goes on), images per second, time left and failures.
final class ProgressDisplay: @unchecked Sendable {
    private let enabled: Bool
    private var lastDraw = DispatchTime(uptimeNanoseconds: 0)
    private var drawn = false
    private let lock = NSLock()

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ progress: FolderIndexer.Progress) {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        let now = DispatchTime.now()
        guard now.uptimeNanoseconds - lastDraw.uptimeNanoseconds > 100_000_000 else { return }
        lastDraw = now
        let total = progress.scanComplete ? "\(progress.candidates)" : "\(progress.candidates)+ (scanning, \(progress.scanned) files seen)"
        var line = "\(progress.done)/\(total)  \(String(format: "%.1f", progress.imagesPerSecond)) img/s"
        if let left = progress.estimatedSecondsLeft { line += "  ETA \(Self.duration(left))" }
        if progress.failed > 0 { line += "  \(progress.failed) failed" }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
        drawn = true
    }

    func clear() {
        lock.lock(); defer { lock.unlock() }
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }

    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return total >= 3600 ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60) : String(format: "%d:%02d", total / 60, total % 60)
    }
}
