import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// A field study's CSV file read: its kind (from the header), its tests, and one warning
/// per row that was skipped (docs/COMPARE.md, "Against field measurements").
public struct MeasuredCSV: Sendable {
    public var path: String
    public var kind: MeasuredTest.Kind
    public var tests: [MeasuredTest]
    /// `file:line: column "...": why; row skipped`, one per skipped row.
    public var warnings: [String]
    public var skipped: Int { warnings.count }

    static let transport = "Transport Protocol", scenario = "Scenario", distanceLabel = "Distance (m)"
    static let averageRtt = "Average RTT (ms)", jitter = "Jitter (ms)"
    static let speed = "Transfer Speed (Mbps)", loss = "Package Loss (%)", size = "Package Size (Bytes)", count = "Number of Packages"
    static let distanceM = "distance_m", file = "file"
    static let optional = [distanceM, file]

    /// The columns each kind must have, in the study's order.
    public static func required(_ kind: MeasuredTest.Kind) -> [String] {
        switch kind {
        case .rtt: [transport, scenario, distanceLabel, averageRtt, jitter]
        case .transfer: [transport, scenario, distanceLabel, speed, loss, size, count]
        }
    }

    /// Reads and checks one file. A header that is neither kind, lacks a required column,
    /// repeats one or has one this reader does not know refuses the file (InputError
    /// naming the file and the column); a bad row is skipped with a warning.
    public static func read(path: String, mapping: MeasuredMapping) throws(InputError) -> MeasuredCSV {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(source: path, "cannot read the file (--measured)")
        }
        return try parse(Array(data), path: path, mapping: mapping)
    }

    /// `read` on bytes already in memory; `path` names them in messages.
    public static func parse(_ bytes: [UInt8], path: String, mapping: MeasuredMapping) throws(InputError) -> MeasuredCSV {
        let records = CSVRecords.parse(bytes)
        guard let header = records.first else { throw InputError(source: path, "empty file: no header line") }
        if let p = header.problem { throw InputError(source: "\(path):\(header.line)", "the header is not valid CSV: \(p)") }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        let kind = try Self.kind(of: names, path: path, line: header.line)
        var column: [String: Int] = [:]
        let known = required(kind) + optional
        for (i, name) in names.enumerated() {
            if column[name] != nil { throw InputError(source: "\(path):\(header.line)", "column \"\(name)\" appears twice") }
            guard known.contains(name) else {
                throw InputError(
                    source: "\(path):\(header.line)",
                    "unknown column \"\(name)\" (a\(kind == .rtt ? "n RTT" : " transfer") file has "
                        + known.map { "\"\($0)\"" }.joined(separator: ", ") + ")")
            }
            column[name] = i
        }
        if let missing = required(kind).first(where: { column[$0] == nil }) {
            throw InputError(
                source: "\(path):\(header.line)",
                "missing column \"\(missing)\" (a\(kind == .rtt ? "n RTT" : " transfer") file needs "
                    + required(kind).map { "\"\($0)\"" }.joined(separator: ", ") + ")")
        }
        var file = MeasuredCSV(path: path, kind: kind, tests: [], warnings: [])
        for r in records.dropFirst() {
            do throws(RowProblem) {
                file.tests.append(try test(r, kind: kind, column: column, width: names.count, path: path, mapping: mapping))
            } catch {
                file.warnings.append("\(path):\(r.line): " + (error.column.map { "column \"\($0)\": " } ?? "") + error.message + "; row skipped")
            }
        }
        return file
    }

    static func kind(of names: [String], path: String, line: Int) throws(InputError) -> MeasuredTest.Kind {
        switch (names.contains(averageRtt), names.contains(speed)) {
        case (true, false): return .rtt
        case (false, true): return .transfer
        case (true, true):
            throw InputError(source: "\(path):\(line)", "has both \"\(averageRtt)\" and \"\(speed)\": one file holds one kind of test")
        case (false, false):
            throw InputError(
                source: "\(path):\(line)",
                "neither an RTT file (column \"\(averageRtt)\") nor a transfer file (column \"\(speed)\"); header: " + names.joined(separator: ","))
        }
    }

    struct RowProblem: Error {
        var column: String?
        var message: String
    }

    static func test(
        _ r: CSVRecords.Record, kind: MeasuredTest.Kind, column: [String: Int], width: Int, path: String,
        mapping: MeasuredMapping
    ) throws(RowProblem) -> MeasuredTest {
        if let p = r.problem { throw RowProblem(message: "not valid CSV: \(p)") }
        guard r.fields.count == width else {
            throw RowProblem(message: "\(r.fields.count) field\(r.fields.count == 1 ? "" : "s"), the header has \(width)")
        }
        func text(_ name: String) -> String { r.fields[column[name]!].trimmingCharacters(in: .whitespaces) }
        func number(_ name: String, range: ClosedRange<Double> = 0...Double.greatestFiniteMagnitude) throws(RowProblem) -> Double {
            let t = text(name)
            guard !t.isEmpty else { throw RowProblem(column: name, message: "empty") }
            guard let x = plainNumber(t) else { throw RowProblem(column: name, message: "\"\(t)\" is not a number") }
            guard range.contains(x) else {
                let low = JSONValue.format(range.lowerBound), high = JSONValue.format(range.upperBound)
                throw RowProblem(
                    column: name, message: "\(t) is out of range (\(range.upperBound == .greatestFiniteMagnitude ? ">= \(low)" : "\(low)...\(high)"))"
                )
            }
            return x
        }
        func whole(_ name: String) throws(RowProblem) -> Int {
            let x = try number(name, range: 1...1e12)
            guard x == x.rounded() else { throw RowProblem(column: name, message: "\(text(name)) is not a whole number") }
            return Int(x)
        }
        guard let transport = mapping.transport(text(Self.transport)) else {
            throw RowProblem(
                column: Self.transport,
                message: "unknown transport \"\(text(Self.transport))\" (the mapping knows "
                    + mapping.transports.map { "\"\($0.from)\"" }.joined(separator: ", ") + "; --measured-map adds others)")
        }
        guard let place = mapping.place(text(scenario)) else {
            throw RowProblem(
                column: scenario,
                message: "unknown place \"\(text(scenario))\" (the mapping knows "
                    + mapping.places.map { "\"\($0.from)\"" }.joined(separator: ", ") + "; --measured-map adds others)")
        }
        let label = try number(distanceLabel)
        let metres: Double
        if column[distanceM] != nil, !text(distanceM).isEmpty {
            metres = try number(distanceM, range: 0...1e6)
        } else {
            guard let m = mapping.metres(label: label) else {
                throw RowProblem(
                    column: distanceLabel,
                    message: "label \(text(distanceLabel)) is not in the distance map ("
                        + mapping.distanceLabels.map { "\($0.from) -> \(JSONValue.format($0.to)) m" }.joined(separator: ", ")
                        + ") and the row has no distance_m")
            }
            metres = m
        }
        var t = MeasuredTest(kind: kind, transport: transport, place: place, distanceM: metres, source: "\(path):\(r.line)")
        switch kind {
        case .rtt:
            t.averageRttMs = try number(averageRtt)
            t.jitterMs = try number(jitter)
        case .transfer:
            t.speedMbps = try number(speed)
            t.lossPercent = try number(loss, range: 0...100)
            t.size = try whole(size)
            t.count = try whole(count)
        }
        return t
    }

    /// A decimal number as people write it (`-1.5`, `3`, `.5`, `2e-3`), or nil: not `N/A`,
    /// `8.650.004883`, `nan`, `inf`, hexadecimal or a decimal comma, which `Double(_:)`
    /// would partly accept.
    static func plainNumber(_ s: String) -> Double? {
        var u = Array(s.utf8)[...]
        if let f = u.first, f == UInt8(ascii: "+") || f == UInt8(ascii: "-") { u = u.dropFirst() }
        let isDigit = { (c: UInt8) in c >= 48 && c <= 57 }
        let intPart = u.prefix(while: isDigit)
        u = u.dropFirst(intPart.count)
        var fracPart: ArraySlice<UInt8> = []
        if u.first == UInt8(ascii: ".") {
            u = u.dropFirst()
            fracPart = u.prefix(while: isDigit)
            u = u.dropFirst(fracPart.count)
        }
        guard !intPart.isEmpty || !fracPart.isEmpty else { return nil }
        if let e = u.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            u = u.dropFirst()
            if let f = u.first, f == UInt8(ascii: "+") || f == UInt8(ascii: "-") { u = u.dropFirst() }
            let exp = u.prefix(while: isDigit)
            guard !exp.isEmpty else { return nil }
            u = u.dropFirst(exp.count)
        }
        guard u.isEmpty, let x = Double(s), x.isFinite else { return nil }
        return x
    }
}
