/// One place of a field session: an environment at a distance, as the matrix names them.
public struct FieldSite: Sendable, Hashable, CustomStringConvertible {
    public var environment: String
    public var distanceLabel: String

    public init(_ cell: Cell) {
        environment = cell.environment.name
        distanceLabel = cell.distance.label
    }

    public init(environment: String, distanceLabel: String) {
        self.environment = environment
        self.distanceLabel = distanceLabel
    }

    /// "10 m in forest".
    public var description: String {
        let metres = Double(distanceLabel) != nil ? "\(distanceLabel) m" : distanceLabel
        return "\(metres) in \(environment)"
    }
}
