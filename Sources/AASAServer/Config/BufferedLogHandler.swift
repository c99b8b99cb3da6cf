import Foundation
import Logging
import Synchronization

/// aasad's log lines, in `StreamLogHandler`'s format, written by a thread of their own (issue 43).
/// swift-log's `StreamLogHandler` formats a timestamp with `strftime` and writes and flushes each
/// line under a lock on the caller's thread: on `/health/live` that was 7-13% of aasad's time, one
/// request log line each. Here the caller only formats into a shared buffer (the timestamp is
/// made once a second); the writer thread empties the buffer to standard output every 20 ms.
/// A warning or worse is written at once, so a crash right after it keeps it; at most 20 ms of
/// info lines can be lost to a crash, and `flush()` (called as aasad stops) writes what is left.
struct BufferedLogHandler: LogHandler {
    final class Output: Sendable {
        private struct State {
            var pending: [UInt8] = []
            var second = 0
            var stamp = ""
        }
        private let state = Mutex(State())
        /// Serialises writers to the descriptor: the thread, an urgent line, `flush()`.
        private let writing = Mutex(())
        let descriptor: Int32

        init(descriptor: Int32) {
            self.descriptor = descriptor
            let thread = Thread { [self] in
                while true {
                    usleep(20_000)
                    flush()
                }
            }
            thread.name = "aasad log writer"
            thread.start()
        }

        /// `StreamLogHandler`'s timestamp (`2026-11-27T13:04:52+0000`), made once per second.
        func timestamp() -> String {
            var now = time(nil)
            return state.withLock { state in
                if state.second != now || state.stamp.isEmpty {
                    var parts = tm()
                    localtime_r(&now, &parts)
                    var buffer = [Int8](repeating: 0, count: 64)
                    let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
                    state.stamp = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    state.second = now
                }
                return state.stamp
            }
        }

        func append(_ line: String, urgent: Bool) {
            state.withLock { $0.pending.append(contentsOf: line.utf8) }
            if urgent { flush() }
        }

        /// Writes what is pending (from the writer thread, an urgent line, or aasad's end).
        func flush() {
            writing.withLock { _ in
                let bytes = state.withLock { state in
                    defer { state.pending.removeAll(keepingCapacity: true) }
                    return state.pending
                }
                var offset = 0
                while offset < bytes.count {
                    let written = bytes.withUnsafeBytes {
                        write(descriptor, $0.baseAddress! + offset, bytes.count - offset)
                    }
                    if written <= 0 {
                        if written < 0 && errno == EINTR { continue }
                        return
                    }
                    offset += written
                }
            }
        }

        static let stdout = Output(descriptor: STDOUT_FILENO)
    }

    let label: String
    let output: Output
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:] {
        didSet { prettyMetadata = Self.pretty(metadata) }
    }
    private var prettyMetadata: String?
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, output: Output = .stdout, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.output = output
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let provided = metadataProvider?.get() ?? [:]
        let metadataText: String?
        if event.metadata?.isEmpty ?? true, provided.isEmpty, event.error == nil {
            metadataText = prettyMetadata
        } else {
            var merged = metadata.merging(provided) { $1 }.merging(event.metadata ?? [:]) { $1 }
            if let error = event.error { merged["error.message"] = "\(error)" }
            metadataText = Self.pretty(merged)
        }
        var line = output.timestamp()
        line += " \(event.level) \(label):"
        if let metadataText { line += " " + metadataText }
        line += " [\(event.source)] \(event.message)\n"
        output.append(line, urgent: event.level >= .warning)
    }

    /// `StreamLogHandler`'s metadata: `key=value` pairs, sorted by key, space-separated.
    private static func pretty(_ metadata: Logger.Metadata) -> String? {
        guard !metadata.isEmpty else { return nil }
        return metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
}

/// How `aasad serve` logs: through `BufferedLogHandler` (once per process, before anything logs).
public enum ServerLogging {
    public static func bootstrap() {
        LoggingSystem.bootstrap { BufferedLogHandler(label: $0) }
    }

    /// Writes every line still pending: called as aasad stops.
    public static func flush() { BufferedLogHandler.Output.stdout.flush() }
}
