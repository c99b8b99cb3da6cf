import AASAStore
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// The in-memory served copy under the race CI met: a full reload reads the database, a publish
/// lands, then the reload installs what it read.
@Suite struct ServedFilesTests {
    static func revision(_ host: String, _ number: Int, aliases: [String] = []) -> ServedRevision {
        ServedRevision(
            host: host, aliases: aliases, number: number, bytes: Array("r\(number)".utf8), sha256: "h\(number)")
    }

    @Test func aReloadThatReadBeforeAPublishDoesNotUndoIt() {
        let served = ServedFiles()
        served.replaceAll([Self.revision("old.example", 3)], readSince: served.beginReload())

        let start = served.beginReload()
        // What the reload read: example.com not yet published, old.example at 3, gone.example still there.
        let snapshot = [Self.revision("old.example", 3), Self.revision("gone.example", 1)]
        served.update(Self.revision("example.com", 1, aliases: ["www.example.com"]))
        served.replaceAll(snapshot, readSince: start)

        #expect(served.file(for: "example.com")?.revision == 1)
        #expect(served.file(for: "www.example.com")?.revision == 1)
        #expect(served.file(for: "old.example")?.revision == 3)
        #expect(served.file(for: "gone.example")?.revision == 1)

        // The next reload, begun after the publish, is authoritative again: it drops what it lacks.
        served.replaceAll([Self.revision("example.com", 1)], readSince: served.beginReload())
        #expect(served.file(for: "www.example.com") == nil)
        #expect(served.file(for: "gone.example") == nil)
        #expect(served.file(for: "old.example") == nil)
    }

    @Test func aLateUpdateNeverGoesBackARevision() {
        let served = ServedFiles()
        served.update(Self.revision("example.com", 5))
        served.update(Self.revision("example.com", 4))
        #expect(served.file(for: "example.com")?.revision == 5)
        served.update(Self.revision("example.com", 6, aliases: ["a.example.com"]))
        #expect(served.file(for: "a.example.com")?.revision == 6)
    }

    @Test func aRemovedDomainIsNotRestoredByAReloadThatReadBeforeTheDelete() {
        let served = ServedFiles()
        served.update(Self.revision("example.com", 2, aliases: ["www.example.com"]))
        let start = served.beginReload()
        served.remove(host: "example.com")
        served.replaceAll([Self.revision("example.com", 2, aliases: ["www.example.com"])], readSince: start)
        #expect(served.file(for: "example.com") == nil)
        #expect(served.file(for: "www.example.com") == nil)
        // Re-created, it starts at revision 1 again, and is served.
        served.update(Self.revision("example.com", 1))
        #expect(served.file(for: "example.com")?.revision == 1)
    }

    /// Two reloads overlap (the listener's on reconnect and the periodic one): the one that began
    /// later is installed first, then the earlier one finishes. Neither the publish in between nor
    /// the later reload's newer data may be undone.
    @Test func overlappingReloadsKeepTheNewestState() {
        let served = ServedFiles()
        let early = served.beginReload()
        served.update(Self.revision("example.com", 2))
        let late = served.beginReload()
        served.replaceAll([Self.revision("example.com", 2), Self.revision("other.example", 7)], readSince: late)
        served.replaceAll([Self.revision("example.com", 1), Self.revision("other.example", 6)], readSince: early)
        #expect(served.file(for: "example.com")?.revision == 2)
        #expect(served.file(for: "other.example")?.revision == 7)
    }
}
