import ExecTransport
import Foundation
import Logging
import PeerBenchCore
import TransportTestSupport

/// A directory of small shell scripts acting as external plugins.
struct ScriptDirectory {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("pb-exec-scripts-\(UUID())").path

    init(_ scripts: [String: String]) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, body) in scripts {
            let file = path + "/" + name
            try ("#!/bin/sh\n" + body + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file)
        }
    }

    /// A transports array entry using these scripts.
    func transport(label: String, server: [String]?, client: [String], extra: String = "") -> String {
        func list(_ a: [String]) -> String { "[" + a.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
        let s = server.map { "\"server\": \(list($0)), " } ?? ""
        return #"{"plugin": "exec", "label": "\#(label)", "options": {\#(s)"client": \#(list(client)), "workingDirectory": "\#(path)"\#(extra)}}"#
    }
}
