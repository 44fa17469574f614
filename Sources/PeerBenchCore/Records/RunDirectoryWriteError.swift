import Foundation

/// A file of the run folder could not be written: which file, and why in words
/// ("no space left on the device"), never a raw Foundation error.
public struct RunDirectoryWriteError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var errno: Int32

    public var isDiskFull: Bool { errno == ENOSPC || errno == EDQUOT }

    public var description: String {
        let why = isDiskFull ? "no space left on the device" : String(cString: strerror(errno)).lowercased()
        return "cannot write \(path): \(why)"
    }
}
