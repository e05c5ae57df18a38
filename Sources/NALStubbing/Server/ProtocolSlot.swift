import Foundation
import NALLogging

/// A type that stands for one small integer, so that `StubProtocol<Slot>` is a distinct URLProtocol class per
/// server: FoundationNetworking finds protocols by class, and a server's class must serve only that server's stubs
/// (Linux fact 6).
protocol StubSlot {
    static var index: Int { get }
}

/// Slot numbers as types, in binary: `SlotOne` is 1, `SlotDouble<N>` is 2N, `SlotDoublePlusOne<N>` is 2N + 1. A number needs
/// as many levels of nesting as it has bits, so even the millionth server's class is cheap to make.
enum SlotOne: StubSlot {
    static var index: Int { 1 }
}

enum SlotDouble<Half: StubSlot>: StubSlot {
    static var index: Int { Half.index * 2 }
}

enum SlotDoublePlusOne<Half: StubSlot>: StubSlot {
    static var index: Int { Half.index * 2 + 1 }
}

/// The slot a server holds: its protocol class, and the entry that lets that class find the server. Slots are
/// never reused: a session made from a server that is gone must fail, not reach another test's stubs (or the
/// network), so its class keeps pointing at the released slot.
final class ProtocolSlot: Sendable {
    let index: Int
    let protocolClass: AnyClass

    private struct Table: Sendable {
        var servers: [Int: WeakServer] = [:]
        var next = 1
    }

    private struct WeakServer: @unchecked Sendable {
        // @unchecked: a weak reference is read and written only under the table's lock.
        weak var server: StubServer?
    }

    private static let table = Locked(Table())

    /// Takes a new slot for `server`.
    init(for server: StubServer) {
        let index = Self.table.withLock { table -> Int in
            defer { table.next += 1 }
            table.servers[table.next] = WeakServer(server: server)
            return table.next
        }
        self.index = index
        protocolClass = Self.protocolClass(for: Self.slotType(index))
    }

    /// Marks the slot's server as gone; its sessions' requests fail from now on.
    func release() {
        Self.table.withLock { $0.servers[index] = WeakServer(server: nil) }
    }

    /// The server that holds slot `index`, if it is alive.
    static func server(at index: Int) -> StubServer? {
        table.withLock { $0.servers[index]?.server }
    }

    /// Whether slot `index` was ever given to a server (alive or gone).
    static func isAssigned(_ index: Int) -> Bool {
        table.withLock { $0.servers[index] != nil }
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
