import ClassifyIndexing
import Foundation

/// One status line on stderr, redrawn at most ten times a second: files done of total, images per
/// second, time left and failures.
///
/// The indexer streams the walk, so its total of files to classify is final only at the end. When
/// `setFilesInFolders` has the number of image files in the folders (a quick count made beside the
/// run), the total is estimated from the share of walked files that needed work, shown as `~N`.
///
/// Usage: `let display = ProgressDisplay(enabled: Terminal.stderrIsTerminal); display.update(progress)`
final class ProgressDisplay: @unchecked Sendable {
    private let enabled: Bool
    private var lastDraw = DispatchTime(uptimeNanoseconds: 0)
    private var drawn = false
    private var stopped = false
    private var filesInFolders: Int?
    private let lock = NSLock()

    init(enabled: Bool) { self.enabled = enabled }

    /// The number of image files the walk will see, once counted.
    func setFilesInFolders(_ count: Int) {
        lock.lock(); defer { lock.unlock() }
        filesInFolders = count
    }

    func update(_ progress: LibraryIndexer.Progress) {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        guard !stopped else { return }
        let now = DispatchTime.now()
        guard now.uptimeNanoseconds - lastDraw.uptimeNanoseconds > 100_000_000 else { return }
        lastDraw = now
        FileHandle.standardError.write(Data("\r\u{1B}[K\(Self.line(progress, filesInFolders: filesInFolders))".utf8))
        drawn = true
    }

    /// The status text for `progress`, e.g. `571/~2000  43.8 img/s  ETA 0:33  2 failed`.
    static func line(_ progress: LibraryIndexer.Progress, filesInFolders: Int?) -> String {
        let rate = progress.imagesPerSecond
        var total = "\(progress.candidates)"
        var secondsLeft = progress.estimatedSecondsLeft
        if !progress.scanComplete {
            if let files = filesInFolders, progress.scanned > 0, files >= progress.scanned {
                let estimate = max(progress.candidates, Int((Double(progress.candidates) * Double(files) / Double(progress.scanned)).rounded()))
                total = "~\(estimate)"
                secondsLeft = rate > 0 ? Double(estimate - progress.done) / rate : nil
            } else {
                total = "\(progress.candidates)+ (scanning, \(progress.scanned) files seen)"
            }
        }
        var line = "\(progress.done)/\(total)  \(String(format: "%.1f", rate)) img/s"
        // The first files' rate still carries the start-up time; wait a little before predicting.
        if let secondsLeft, progress.done >= 10 { line += "  ETA \(duration(secondsLeft))" }
        if progress.failed > 0 { line += "  \(progress.failed) failed" }
        return line
    }

    /// Writes a diagnostic line on stderr above the status line (which the next update redraws).
    func interject(_ write: () -> Void) {
        lock.lock(); defer { lock.unlock() }
        if drawn {
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            drawn = false
        }
        write()
    }

    /// Erases the status line and draws no more (after Ctrl-C, and before the summary).
    func stop() {
        lock.lock(); defer { lock.unlock() }
        stopped = true
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }

    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return total >= 3600 ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60) : String(format: "%d:%02d", total / 60, total % 60)
    }
}
