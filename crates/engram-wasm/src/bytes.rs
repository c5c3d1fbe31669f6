//! Bytes between the core and JS without an extra copy: the core writes a snapshot or an op
//! batch into a JS buffer in pieces, and reads one from a JS buffer in pieces.

/// A JS buffer filled from the core's pieces.
pub(crate) struct JsBytes {
    pub(crate) buf: js_sys::Uint8Array,
    pub(crate) at: u32,
}

impl engram_core::ByteSink for JsBytes {
    fn begin(&mut self, len: usize) {
        // The core refuses payloads over 4 GiB before it begins.
        self.buf = js_sys::Uint8Array::new_with_length(len as u32);
    }
    fn write(&mut self, bytes: &[u8]) {
        let end = self.at + bytes.len() as u32;
        self.buf.subarray(self.at, end).copy_from(bytes);
        self.at = end;
    }
}

/// A JS buffer the core reads in pieces.
pub(crate) struct JsSource(pub(crate) js_sys::Uint8Array);

impl engram_core::ByteSource for JsSource {
    fn len(&self) -> usize {
        self.0.length() as usize
    }
    fn read(&mut self, at: usize, n: usize, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + n, 0);
        self.0.subarray(at as u32, (at + n) as u32).copy_to(&mut out[start..]);
    }
}
