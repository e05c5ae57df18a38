import Foundation
import NALLogging

/// A type that stands for one small integer, so that `StubProtocol<Slot>` is a distinct URLProtocol class per
/// server: FoundationNetworking finds protocols by class, and a server's class must serve only that server's stubs
/// (Linux fact 6).
protocol StubSlot {
    static var index: Int { get }
}

enum FirstSlot: StubSlot {
    static var index: Int { 0 }
}

enum NextSlot<Previous: StubSlot>: StubSlot {
    static var index: Int { Previous.index + 1 }
}

/// The slot a server holds: its protocol class, and the entry that lets that class find the server. Slots are
/// reused after their server is gone, so the number of classes stays at the number of servers alive at once.
final class ProtocolSlot: Sendable {
    let index: Int
    let protocolClass: AnyClass

    private struct Table: Sendable {
        var servers: [Int: WeakServer] = [:]
    }

    private struct WeakServer: @unchecked Sendable {
        // @unchecked: a weak reference is read and written only under the table's lock.
        weak var server: StubServer?
    }

    private static let table = Locked(Table())

    /// Takes the lowest free slot for `server`.
    init(for server: StubServer) {
        let index = Self.table.withLock { table -> Int in
            var index = 0
            while let taken = table.servers[index], taken.server != nil { index += 1 }
            table.servers[index] = WeakServer(server: server)
            return index
        }
        self.index = index
        protocolClass = Self.protocolClass(for: Self.slotType(index))
    }

    /// Frees the slot.
    func release() {
        Self.table.withLock { $0.servers[index] = nil }
    }

    /// The server that holds slot `index`, if it is alive.
    static func server(at index: Int) -> StubServer? {
        table.withLock { $0.servers[index]?.server }
    }

    /// `NextSlot<NextSlot<…<FirstSlot>>>` with `index` levels.
    private static func slotType(_ index: Int) -> any StubSlot.Type {
        var slot: any StubSlot.Type = FirstSlot.self
        for _ in 0..<index { slot = next(slot) }
        return slot
    }

    private static func next<Slot: StubSlot>(_ slot: Slot.Type) -> any StubSlot.Type { NextSlot<Slot>.self }

    private static func protocolClass<Slot: StubSlot>(for slot: Slot.Type) -> AnyClass { StubProtocol<Slot>.self }
}
