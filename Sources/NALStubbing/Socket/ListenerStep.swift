/// What a stub listener does with a request it read: answer at once, on the connection's loop, when the answer
/// needs no waiting (a stub in memory without delay or pacing, a near-miss report, an admin endpoint), or in a task
/// when it does. Answering at once saves a task and its hops, and lets pipelined requests be answered in one write.
enum ListenerStep: Sendable {
    /// The whole answer; whether the connection stays open after it; what runs once it is queued (a stub's
    /// `onDelivered`).
    case now(bytes: [UInt8], keepAlive: Bool, delivered: (@Sendable () -> Void)?)
    /// The answer, played onto the connection in a task.
    case later(@Sendable (StubConnection) async -> Void)
}
