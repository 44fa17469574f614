/// Where the answers come from: a terminal, a pipe (`--answers -`), or a test's lines.
public protocol FieldInput: Sendable {
    /// The next line without its newline; nil at end of input or once `stop()` is true
    /// (the run's stopper fired while waiting: Ctrl-C at the prompt).
    func readLine(stop: @Sendable () -> Bool) -> String?
}
