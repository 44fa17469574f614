import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Secrets on disk (a pre-shared key file, serve's private key): one way to write them.
enum PrivateFile {
    /// Creates `path` with mode 0600 and `O_EXCL | O_NOFOLLOW`, so an existing file (or
    /// a symbolic link planted there) is never overwritten, writes `bytes` and syncs
    /// them; a half-written file is removed. `noun` names the file in errors ("key
    /// file"), `kept` what is never overwritten ("a key").
    static func create(_ path: String, bytes: [UInt8], noun: String, kept: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 {
            let e = errno
            if e == EEXIST {
                throw InputError(source: path, "the file already exists; \(kept) is never overwritten (remove it first, or choose another name)")
            }
            throw InputError(source: path, "cannot create the \(noun): \(String(cString: strerror(e)))")
        }
        defer { _ = Glibc.close(fd) }
        do {
            // The umask may only have narrowed 0600; make the mode exactly that.
            try syscall("fchmod") { fchmod(fd, 0o600) }
            try writeAll(fd, bytes)
            try syscall("fsync") { fsync(fd) }
        } catch {
            _ = unlink(path)
            throw InputError(source: path, "cannot write the \(noun): \(error)")
        }
    }
}
