/// The text of a JSON number, appended to a byte buffer without making a `String`:
/// compare's JSON over 200 000 records writes some five million numbers, and a String
/// per number (most are longer than the 15 bytes a String holds inline) was an
/// allocation, a copy and a release each.
public enum JSONNumberText {
    /// Appends what `JSONValue.format(n)` returns: whole numbers a double holds exactly
    /// (up to 2^53) as integers, other finite numbers as Swift prints them (`"\(n)"`:
    /// the shortest text that reads back to the same double), others as `null`.
    public static func append(_ n: Double, to out: inout [UInt8]) {
        guard n.isFinite else {
            out += "null".utf8
            return
        }
        if n == n.rounded(), abs(n) <= 9_007_199_254_740_992 {
            appendInteger(Int64(n), to: &out)
            return
        }
        // The standard library's own digits, handed over as ASCII bytes: the same
        // routine string interpolation uses, so the text is `"\(n)"`'s by construction.
        var sink = Sink()
        swap(&sink.bytes, &out)
        n.write(to: &sink)
        swap(&sink.bytes, &out)
    }

    /// Appends the decimal digits of `v` (with a minus sign when negative), as `String(v)`.
    static func appendInteger(_ v: Int64, to out: inout [UInt8]) {
        if v < 0 { out.append(UInt8(ascii: "-")) }
        var m = v.magnitude
        var digits = 1
        var power: UInt64 = 10
        while digits < 20, m >= power {
            digits += 1
            if digits < 20 { power &*= 10 }
        }
        let start = out.count
        out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        out.withUnsafeMutableBufferPointer { b in
            var i = start + digits - 1
            repeat {
                b[i] = UInt8(ascii: "0") + UInt8(m % 10)
                m /= 10
                i -= 1
            } while m > 0
        }
    }

    /// A text stream that takes the standard library's ASCII digits straight into bytes
    /// (`_writeASCII` is the hook `TextOutputStream` has for them; its default makes a String).
    private struct Sink: TextOutputStream {
        var bytes: [UInt8] = []

        mutating func write(_ string: String) { bytes += string.utf8 }

        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }
    }
}
