// NALStubbing: StubTransport, the URLProtocol stub server and fixtures land here. Until then the module is
// intentionally empty.
