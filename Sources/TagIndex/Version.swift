import GRDB
public enum TagIndexVersion { public static let string = "0.1.0" }
