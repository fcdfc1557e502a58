import CClassifyBLAS
import CClassifyCodecs
import CClassifyKernels
public enum ClassifyVersion { public static let string = "0.1.0" }
