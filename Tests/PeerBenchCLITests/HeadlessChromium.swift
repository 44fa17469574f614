import Foundation

/// Debian's chromium, headless, with no network: every proxy connection goes to a
/// closed local port and every host name fails to resolve, so a page that needs a CDN
/// cannot draw. Returns the DOM after the page's scripts ran and what it wrote to the console.
enum HeadlessChromium {
    static let binary = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    struct Page {
        var dom: String
        /// Console messages (console.log/warn/error, uncaught exceptions), in order.
        var console: [String]
    }

    static func load(_ file: String, budgetMillis: Int = 20_000) throws -> Page {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary!)
        let profile = CLI.tempDir()
        p.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)",
            "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr", "--v=0",
            "--virtual-time-budget=\(budgetMillis)", "--dump-dom", URL(fileURLWithPath: file).absoluteString,
        ]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // A hung browser must not hang the suite.
        let killer = DispatchWorkItem { if p.isRunning { p.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: killer)
        nonisolated(unsafe) var errData = Data()
        let reader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let dom = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        killer.cancel()
        while !reader.isFinished { usleep(1_000) }
        try? FileManager.default.removeItem(atPath: profile)
        let console = String(decoding: errData, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
            // [pid:tid:date:INFO:CONSOLE:LINE] "message", source: file:///... (LINE)
            guard line.contains(":CONSOLE"), let open = line.firstIndex(of: "\"") else { return nil }
            let rest = line[line.index(after: open)...]
            return String(rest.range(of: "\", source:").map { rest[..<$0.lowerBound] } ?? rest)
        }
        return Page(dom: dom, console: console)
    }

    /// Vega's own log lines carry their level first ("WARN Infinite extent ..."); an error
    /// is anything else on the console: console.error, an uncaught exception, a failed load.
    /// Not the page's: Chromium's own intervention notice when its UI font loads slowly on
    /// a busy machine ("Slow network is detected ... chrome://resources/...").
    static func errors(_ console: [String]) -> [String] {
        console.filter {
            !($0.hasPrefix("WARN ") || $0.hasPrefix("INFO ") || $0.hasPrefix("DEBUG "))
                && !($0.hasPrefix("Slow network is detected.") && $0.contains("chrome://resources/"))
        }
    }

    /// Number of `needle` occurrences in `text`.
    static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }
}
