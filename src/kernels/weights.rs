//! A network's weights without burn: named f32 tensors in PyTorch's layout,
//! and the safetensors file format that carries them.
//!
//! The layout is the published one: an 8-byte little-endian header length,
//! a JSON header of names, dtypes, shapes and byte offsets, then the raw
//! little-endian data. [`safetensors`] writes it, [`read_safetensors`] reads
//! an f32 file back; the compiled network ([`super::compiled`]) is built
//! from a `&[NamedTensor]`, whichever of the two produced it.
//!
//! ```
//! use cube_oracle::kernels::weights::{NamedTensor, read_safetensors, safetensors};
//! let t = NamedTensor { name: "head.bias".into(), shape: vec![2], data: vec![0.5, -1.0] };
//! let bytes = safetensors(std::slice::from_ref(&t), &[("kind", "q-distance")]);
//! assert_eq!(read_safetensors(&bytes).unwrap(), vec![t]);
//! assert!(read_safetensors(&bytes[..4]).is_err());
//! ```

use serde_json::{Value, json};

/// One named tensor of a network, row-major, in PyTorch's layout (a linear
/// layer's weight is `[out, in]`).
#[derive(Clone, Debug, PartialEq)]
pub struct NamedTensor {
    /// `trunk.0.linear.weight`, `blocks.1.second.norm.running_var`, `head.bias`, …
    pub name: String,
    /// Dimensions.
    pub shape: Vec<usize>,
    /// Values.
    pub data: Vec<f32>,
}

/// `tensors` (f32) and string `metadata` in the safetensors layout.
#[must_use]
pub fn safetensors(tensors: &[NamedTensor], metadata: &[(&str, &str)]) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    let meta: serde_json::Map<String, Value> = metadata.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
    header.insert("__metadata__".into(), Value::Object(meta));
    let mut offset = 0usize;
    for t in tensors {
        let end = offset + 4 * t.data.len();
        header.insert(t.name.clone(), json!({ "dtype": "F32", "shape": t.shape, "data_offsets": [offset, end] }));
        offset = end;
    }
    let mut head = Value::Object(header).to_string().into_bytes();
    // The data starts 8-byte aligned: the header is padded with spaces.
    while !head.len().is_multiple_of(8) {
        head.push(b' ');
    }
    let mut out = Vec::with_capacity(8 + head.len() + offset);
    out.extend_from_slice(&(head.len() as u64).to_le_bytes());
    out.extend_from_slice(&head);
    for t in tensors {
        for v in &t.data {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Reads an f32 safetensors file back (the inverse of [`safetensors`], for
/// tests and tools): the tensors in file order.
///
/// # Errors
/// A short file, a header that is not JSON, a tensor that is not F32 or
/// whose offsets fall outside the data: the reason in words.
pub fn read_safetensors(bytes: &[u8]) -> Result<Vec<NamedTensor>, String> {
    let len = bytes.get(..8).ok_or("shorter than the 8-byte header length")?;
    let len = usize::try_from(u64::from_le_bytes(len.try_into().map_err(|_| "header length")?))
        .map_err(|_| "header length overflows")?;
    let head = bytes.get(8..8 + len).ok_or("the header runs past the end of the file")?;
    let data = &bytes[8 + len..];
    let header: serde_json::Map<String, Value> =
        serde_json::from_slice(head).map_err(|e| format!("the header is not a JSON object: {e}"))?;
    let mut out = Vec::new();
    for (name, spec) in header {
        if name == "__metadata__" {
            continue;
        }
        if spec["dtype"] != "F32" {
            return Err(format!("{name}: dtype {} (only F32 is read)", spec["dtype"]));
        }
        let shape: Vec<usize> = spec["shape"]
            .as_array()
            .ok_or(format!("{name}: no shape"))?
            .iter()
            .map(|d| d.as_u64().map(|d| d as usize).ok_or(format!("{name}: a dimension is not a count")))
            .collect::<Result<_, _>>()?;
        let offs = spec["data_offsets"].as_array().ok_or(format!("{name}: no data_offsets"))?;
        let (a, b) = match (offs.first().and_then(Value::as_u64), offs.get(1).and_then(Value::as_u64)) {
            (Some(a), Some(b)) if a <= b => (a as usize, b as usize),
            _ => return Err(format!("{name}: bad data_offsets")),
        };
        let raw = data.get(a..b).ok_or(format!("{name}: data_offsets past the end of the data"))?;
        if raw.len() != 4 * shape.iter().product::<usize>() {
            return Err(format!("{name}: {} bytes for shape {shape:?}", raw.len()));
        }
        let values = raw.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        out.push((a, NamedTensor { name, shape, data: values }));
    }
    out.sort_by_key(|(a, _)| *a);
    Ok(out.into_iter().map(|(_, t)| t).collect())
}
