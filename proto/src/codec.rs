//! Protobuf on the wire as tonic-prost encodes it, but a message that does
//! not decode is the sender's fault: `INVALID_ARGUMENT` naming why, where
//! tonic-prost says `INTERNAL` (which reads as a fault of the receiver).

use std::marker::PhantomData;

use prost::Message;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic::Status;
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

/// The codec of every `egdb.v1` service (`build.rs` names it).
#[derive(Debug, Clone)]
pub struct CheckedCodec<T, U> {
    _types: PhantomData<(T, U)>,
}

impl<T, U> Default for CheckedCodec<T, U> {
    fn default() -> Self {
        CheckedCodec {
            _types: PhantomData,
        }
    }
}

impl<T, U> Codec for CheckedCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = CheckedDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstCodec::<T, U>::default().encoder()
    }

    fn decoder(&mut self) -> Self::Decoder {
        CheckedDecoder(ProstCodec::<T, U>::default().decoder())
    }
}

/// Decodes as tonic-prost does; a decoding error becomes
/// `INVALID_ARGUMENT`.
#[derive(Debug)]
pub struct CheckedDecoder<U>(ProstDecoder<U>);

impl<U: Message + Default> Decoder for CheckedDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.0.decode(buf).map_err(|status| {
            Status::invalid_argument(format!("not an egdb.v1 message: {}", status.message()))
        })
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.0.buffer_settings()
    }
}
