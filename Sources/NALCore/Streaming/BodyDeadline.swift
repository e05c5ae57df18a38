/// The total timeout of a streamed call, applied to its body after the head: the body is stopped with the
/// timeout's error when the deadline passes first.
enum BodyDeadline {
    static func enforce(_ deadline: ContinuousClock.Instant, on body: StreamedBody, with error: NALError) {
        let channel = body.channel
        let timer = DeadlineTimer(deadline) { channel.stop(with: error) }
        channel.whenEnded { _ in timer.cancel() }
    }
}
