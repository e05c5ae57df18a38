import Foundation
import NALLogging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A type that stands for one small integer, so that `StubProtocol<Slot>` is a distinct URLProtocol class per
/// slot: FoundationNetworking finds protocols by class, and a slot's class must serve only its own server's stubs
/// (Linux fact 6).
protocol StubSlot {
    static var index: Int { get }
}

/// Slot numbers as types, in binary: `SlotOne` is 1, `SlotDouble<N>` is 2N, `SlotDoublePlusOne<N>` is 2N + 1. A
/// number needs as many levels of nesting as it has bits, so even the millionth slot's class is cheap to make.
enum SlotOne: StubSlot {
    static var index: Int { 1 }
}

enum SlotDouble<Half: StubSlot>: StubSlot {
    static var index: Int { Half.index * 2 }
}

enum SlotDoublePlusOne<Half: StubSlot>: StubSlot {
    static var index: Int { Half.index * 2 + 1 }
}

/// A URLProtocol class of a server, and the entry that lets that class find the server. A server has one slot for
/// `install()` and one per `sessionConfiguration` it made: that slot also keeps the configuration, so that the stub
/// server can honour what a URLProtocol cannot see on Linux (its timeouts and cookie settings).
///
/// Slots are never reused: a session made from a server that is gone must fail, not reach another test's stubs
/// (or the network), so its class keeps pointing at the released slot. A slot that was installed globally
/// (`URLProtocol.registerClass`) stops claiming requests once released instead, so that a test that forgot
/// `uninstall()` does not break `URLSession.shared` for the rest of the run.
final class ProtocolSlot: Sendable {
    let index: Int
    let protocolClass: AnyClass

    private struct Entry: @unchecked Sendable {
        // @unchecked: read and written only under the table's lock; the configuration is only read once its
        // session exists.
        weak var server: StubServer?
        var configuration: URLSessionConfiguration?
        var released = false
        var installed = false
    }

    private struct Table: Sendable {
        var entries: [Int: Entry] = [:]
        var next = 1
    }

    private static let table = Locked(Table())

    /// Takes a new slot for `server`, for sessions made from `configuration` (or for `install()` when `nil`).
    init(for server: StubServer, configuration: URLSessionConfiguration? = nil) {
        let index = Self.table.withLock { table -> Int in
            defer { table.next += 1 }
            table.entries[table.next] = Entry(server: server, configuration: configuration)
            return table.next
        }
        self.index = index
        protocolClass = Self.protocolClass(for: Self.slotType(index))
    }

    /// Marks the slot's server as gone: its sessions' requests fail from now on, unless the slot was installed
    /// globally, in which case it stops claiming requests.
    func release() {
        Self.table.withLock { table in
            table.entries[index]?.server = nil
            table.entries[index]?.configuration = nil
            table.entries[index]?.released = true
        }
    }

    /// Notes whether the slot's class is registered with `URLProtocol.registerClass`.
    func setInstalled(_ installed: Bool) {
        Self.table.withLock { $0.entries[index]?.installed = installed }
    }

    /// The server that holds slot `index`, if it is alive, and the configuration of the slot's sessions.
    static func server(at index: Int) -> (server: StubServer, configuration: URLSessionConfiguration?)? {
        table.withLock { table in
            guard let entry = table.entries[index], let server = entry.server else { return nil }
            return (server, entry.configuration)
        }
    }

    /// Whether the class of slot `index` answers requests: it was given to a server, and it is not a released slot
    /// that was installed globally.
    static func claimsRequests(_ index: Int) -> Bool {
        table.withLock { table in
            guard let entry = table.entries[index] else { return false }
            return !(entry.released && entry.installed)
        }
    }

    /// The type for `index` (at least 1), built from its bits, most significant first.
    static func slotType(_ index: Int) -> any StubSlot.Type {
        var slot: any StubSlot.Type = SlotOne.self
        let bits = Int.bitWidth - index.leadingZeroBitCount
        for bit in stride(from: bits - 2, through: 0, by: -1) {
            slot = index & (1 << bit) == 0 ? doubled(slot) : doubledPlusOne(slot)
        }
        return slot
    }

    private static func doubled<Slot: StubSlot>(_ slot: Slot.Type) -> any StubSlot.Type { SlotDouble<Slot>.self }
    private static func doubledPlusOne<Slot: StubSlot>(_ slot: Slot.Type) -> any StubSlot.Type {
        SlotDoublePlusOne<Slot>.self
    }

    private static func protocolClass<Slot: StubSlot>(for slot: Slot.Type) -> AnyClass { StubProtocol<Slot>.self }
}
