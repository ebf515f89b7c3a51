// Generates the egdb.v1 messages and the Coordination and Query services with the
// protoc that ships inside the protoc-bin-vendored crate, so that no system
// protoc is needed.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    std::env::set_var("PROTOC", protoc);
    println!("cargo:rerun-if-changed=proto/egdb/v1/egdb.proto");
    println!("cargo:rerun-if-changed=build.rs");
    // The descriptor set lets `egdb serve` answer gRPC reflection.
    let descriptors =
        std::path::PathBuf::from(std::env::var("OUT_DIR")?).join("egdb_descriptor.bin");
    // A request that does not decode is answered INVALID_ARGUMENT.
    tonic_prost_build::configure()
        .codec_path("crate::codec::CheckedCodec")
        .file_descriptor_set_path(descriptors)
        .compile_protos(&["proto/egdb/v1/egdb.proto"], &["proto"])?;
    Ok(())
}
