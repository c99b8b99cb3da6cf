import Crypto
import Synchronization

/// Answers kept by the content they were computed from (a SHA-256 of it), so an entry can never
/// be stale: bounded in entries and in bytes (the caller's measure of an entry), the oldest
/// forgotten first. `ValidatedRenders` and `DiffAnswers` keep theirs here.
package final class ContentCache<Value: Sendable>: Sendable {
    package let maxEntries: Int
    package let maxBytes: Int

    private struct State {
        package var entries: [[UInt8]: (value: Value, bytes: Int)] = [:]
        package var arrival: [[UInt8]] = []
        package var bytes = 0
    }
    private let state = Mutex(State())

    package init(maxEntries: Int, maxBytes: Int) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
    }

    /// The key of `parts`, each length-prefixed so that no two lists of parts share one.
    package static func key(_ parts: [[UInt8]]) -> [UInt8] {
        var hasher = SHA256()
        for part in parts {
            hasher.update(data: withUnsafeBytes(of: UInt64(part.count).littleEndian, Array.init))
            hasher.update(data: part)
        }
        return Array(hasher.finalize())
    }

    package subscript(key: [UInt8]) -> Value? { state.withLock { $0.entries[key]?.value } }

    package func remember(_ value: Value, bytes: Int, key: [UInt8]) {
        state.withLock { state in
            if let replaced = state.entries.updateValue((value, bytes), forKey: key) {
                // The same key again (a read model's entry renewed): only the size moves.
                state.bytes += bytes - replaced.bytes
                return
            }
            state.arrival.append(key)
            state.bytes += bytes
            while state.arrival.count > maxEntries || (state.bytes > maxBytes && state.arrival.count > 1) {
                let oldest = state.arrival.removeFirst()
                state.bytes -= state.entries.removeValue(forKey: oldest)?.bytes ?? 0
            }
        }
    }
}
