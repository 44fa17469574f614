#if canImport(Glibc)
    import Glibc
#endif

/// A running publication; `stop()` (or deinit) withdraws it.
public final class Advertisement {
    /// The name Avahi registered (the requested one, or `NAME #2` after a collision).
    public let name: String
    public let port: UInt16
    private let tool: AvahiTool

    init(name: String, port: UInt16, tool: AvahiTool) {
        self.name = name
        self.port = port
        self.tool = tool
    }

    /// Withdraws the record (avahi-publish unregisters on SIGTERM). Idempotent.
    public func stop() { _ = tool.finish() }

    deinit { stop() }
}
