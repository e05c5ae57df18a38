/// How long a stub listener waits on a client before it closes the connection.
package struct ListenerTimeouts: Sendable {
    /// A request, head and body, must come whole within this of its first byte (a slowloris client is answered 408
    /// and closed).
    package var head: Duration = .seconds(10)
    /// A keep-alive connection with no request in progress is closed after this.
    package var idle: Duration = .seconds(60)
    /// A client that reads nothing of what is sent to it for this long is dropped.
    package var write: Duration = .seconds(30)

    package init() {}
}
