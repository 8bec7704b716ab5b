//! A network written as ONNX, for apps that run it without zerosum (onnxruntime on a web
//! page, a phone, a game engine): one input, `observation` (`[batch, planes, height, width]`
//! float32, the game's encoding of the position from the mover's view), and two outputs,
//! `policy` (`[batch, actions]`, logits over every action, legal or not) and `value`
//! (`[batch]`, in [-1, 1], for the player to move). Batch norm runs on its running
//! statistics and dropout is left out, as in play. The game and the meaning of each tensor
//! go in the model's metadata.
//!
//! The graph is written here, in protobuf, from the family's layers (libtorch has no ONNX
//! exporter, and PyTorch's would mean Python): the handful of operators the families use,
//! from ONNX opset 17.

use std::collections::HashMap;

use tch::{Kind, Tensor};

use crate::config::Family;
use crate::error::NnError;
use crate::model::Model;

/// The opset whose operators the graph uses (Gemm, Conv, BatchNormalization, Relu, Add,
/// Flatten, Tanh, Reshape: all unchanged since long before it).
const OPSET: u64 = 17;
/// The IR version that goes with it.
const IR_VERSION: u64 = 8;
/// The epsilon of every batch norm: tch's default, which the families keep.
const BATCH_NORM_EPSILON: f32 = 1e-5;

/// The network of `model` as the bytes of an ONNX file.
pub fn onnx_bytes(model: &Model) -> Result<Vec<u8>, NnError> {
    let meta = model.meta();
    let mut graph = Graph::new(model);
    let observation = "observation".to_string();
    let (policy, value) = match meta.model.family {
        Family::Mlp => graph.mlp(&observation)?,
        Family::Conv => graph.tower(&observation, false)?,
        Family::Resnet => graph.tower(&observation, true)?,
    };
    let policy = graph.node("Identity", &[&policy], "policy", Vec::new());
    let value = graph.node("Identity", &[&value], "value", Vec::new());
    let [planes, height, width] = meta.obs_shape.map(|n| n as u64);
    let mut body = Message::default();
    for node in graph.nodes {
        body.message(1, node);
    }
    body.string(2, "zerosum");
    for initializer in graph.initializers {
        body.message(5, initializer);
    }
    body.message(
        11,
        value_info(
            &observation,
            &[None, Some(planes), Some(height), Some(width)],
        ),
    );
    let actions = Some(meta.num_actions as u64);
    body.message(12, value_info(&policy, &[None, actions]));
    body.message(12, value_info(&value, &[None]));

    let mut file = Message::default();
    file.varint(1, IR_VERSION);
    file.string(2, "zerosum");
    file.string(3, &meta.zerosum_version);
    file.message(7, body);
    let mut opset = Message::default();
    opset.string(1, "");
    opset.varint(2, OPSET);
    file.message(8, opset);
    for (key, text) in metadata(model) {
        let mut entry = Message::default();
        entry.string(1, key);
        entry.string(2, &text);
        file.message(14, entry);
    }
    Ok(file.0)
}

/// The model's metadata: its game and what each tensor means.
fn metadata(model: &Model) -> Vec<(&'static str, String)> {
    let meta = model.meta();
    let [planes, height, width] = meta.obs_shape;
    vec![
        ("game", meta.game.clone()),
        (
            "observation",
            format!(
                "float32 [batch, {planes}, {height}, {width}]: the position from the mover's \
                 view, encoded as zerosum's game {} encodes it",
                meta.game
            ),
        ),
        (
            "policy",
            format!(
                "float32 [batch, {}]: logits over every action in the game's action order, \
                 legal or not; mask the illegal ones before a softmax",
                meta.num_actions
            ),
        ),
        (
            "value",
            "float32 [batch]: the position's value for the player to move, in [-1, 1] \
             (1 a win, -1 a loss)"
                .to_string(),
        ),
        ("family", format!("{:?}", meta.model.family).to_lowercase()),
        ("generation", meta.generation.to_string()),
        ("step", meta.step.to_string()),
        ("zerosum_version", meta.zerosum_version.clone()),
    ]
}

/// The nodes and weights of a graph being built, over the model's named variables.
struct Graph {
    variables: HashMap<String, Tensor>,
    nodes: Vec<Message>,
    initializers: Vec<Message>,
    /// Names already given to intermediate values.
    made: usize,
}

impl Graph {
    fn new(model: &Model) -> Graph {
        Graph {
            variables: model.var_store().variables(),
            nodes: Vec::new(),
            initializers: Vec::new(),
            made: 0,
        }
    }

    /// The variable `name` as an initializer (in float32, whatever the model runs in).
    fn weight(&mut self, name: &str) -> Result<String, NnError> {
        let tensor = self.variables.get(name).ok_or_else(|| {
            NnError::Export(format!("the network has no variable {name} to write"))
        })?;
        let tensor = tensor.to_kind(Kind::Float).to_device(tch::Device::Cpu);
        let dims: Vec<u64> = tensor.size().iter().map(|&d| d as u64).collect();
        let values = Vec::<f32>::try_from(tensor.flatten(0, -1))
            .map_err(|e| NnError::Export(format!("{name}: {e}")))?;
        let raw: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.initializers.push(tensor_proto(name, &dims, 1, &raw));
        Ok(name.to_string())
    }

    /// A node of `op` over `inputs`, named `output` ("" for a fresh name); returns its
    /// output's name.
    fn node(
        &mut self,
        op: &str,
        inputs: &[&str],
        output: &str,
        attributes: Vec<Message>,
    ) -> String {
        let output = match output {
            "" => {
                self.made += 1;
                format!("{}_{}", op.to_lowercase(), self.made)
            }
            name => name.to_string(),
        };
        let mut node = Message::default();
        for input in inputs {
            node.string(1, input);
        }
        node.string(2, &output);
        node.string(3, &output);
        node.string(4, op);
        for attribute in attributes {
            node.message(5, attribute);
        }
        self.nodes.push(node);
        output
    }

    fn unary(&mut self, op: &str, x: &str) -> String {
        self.node(op, &[x], "", Vec::new())
    }

    /// `x W^T + b` with the linear layer's weights under `prefix`.
    fn linear(&mut self, x: &str, prefix: &str) -> Result<String, NnError> {
        let w = self.weight(&format!("{prefix}.weight"))?;
        let b = self.weight(&format!("{prefix}.bias"))?;
        Ok(self.node("Gemm", &[x, &w, &b], "", vec![int_attribute("transB", 1)]))
    }

    /// Batch norm on running statistics, with its variables under `prefix`.
    fn batch_norm(&mut self, x: &str, prefix: &str) -> Result<String, NnError> {
        let names = ["weight", "bias", "running_mean", "running_var"];
        let inputs = names
            .iter()
            .map(|part| self.weight(&format!("{prefix}.{part}")))
            .collect::<Result<Vec<_>, _>>()?;
        let mut all = vec![x];
        all.extend(inputs.iter().map(String::as_str));
        let epsilon = float_attribute("epsilon", BATCH_NORM_EPSILON);
        Ok(self.node("BatchNormalization", &all, "", vec![epsilon]))
    }

    /// A bias-free square convolution padded to keep the board, then batch norm.
    fn conv_bn(&mut self, x: &str, conv: &str, bn: &str, kernel: u64) -> Result<String, NnError> {
        let w = self.weight(&format!("{conv}.weight"))?;
        let pad = kernel / 2;
        let attributes = vec![
            ints_attribute("kernel_shape", &[kernel, kernel]),
            ints_attribute("pads", &[pad; 4]),
        ];
        let y = self.node("Conv", &[x, &w], "", attributes);
        self.batch_norm(&y, bn)
    }

    /// `x` of shape `[batch, 1]` as `[batch]`.
    fn flattened_value(&mut self, x: &str) -> String {
        self.made += 1;
        let shape = format!("shape_{}", self.made);
        let minus_one = (-1i64).to_le_bytes();
        self.initializers
            .push(tensor_proto(&shape, &[1], 7, &minus_one));
        self.node("Reshape", &[x, &shape], "", Vec::new())
    }

    /// The fully connected family: policy logits and value.
    fn mlp(&mut self, observation: &str) -> Result<(String, String), NnError> {
        let mut x = self.node(
            "Flatten",
            &[observation],
            "",
            vec![int_attribute("axis", 1)],
        );
        let layers = (0..)
            .take_while(|i| {
                self.variables
                    .contains_key(&format!("trunk.layers.{i}.fc.weight"))
            })
            .count();
        for i in 0..layers {
            let y = self.linear(&x, &format!("trunk.layers.{i}.fc"))?;
            let y = self.batch_norm(&y, &format!("trunk.layers.{i}.bn"))?;
            x = self.unary("Relu", &y);
        }
        let policy = self.linear(&x, "heads.policy")?;
        let hidden = self.linear(&x, "heads.value_hidden")?;
        let hidden = self.unary("Relu", &hidden);
        let value = self.linear(&hidden, "heads.value")?;
        let value = self.unary("Tanh", &value);
        Ok((policy, self.flattened_value(&value)))
    }

    /// The convolutional families, residual or plain: policy logits and value.
    fn tower(&mut self, observation: &str, residual: bool) -> Result<(String, String), NnError> {
        let stem = self.conv_bn(observation, "trunk.stem", "trunk.stem_bn", 3)?;
        let mut x = self.unary("Relu", &stem);
        let first = if residual { "conv1" } else { "conv" };
        let blocks = (0..)
            .take_while(|i| {
                let name = format!("trunk.blocks.{i}.{first}.weight");
                self.variables.contains_key(&name)
            })
            .count();
        for i in 0..blocks {
            let block = format!("trunk.blocks.{i}");
            x = if residual {
                let y = self.conv_bn(&x, &format!("{block}.conv1"), &format!("{block}.bn1"), 3)?;
                let y = self.unary("Relu", &y);
                let y = self.conv_bn(&y, &format!("{block}.conv2"), &format!("{block}.bn2"), 3)?;
                let sum = self.node("Add", &[&y, &x], "", Vec::new());
                self.unary("Relu", &sum)
            } else {
                let y = self.conv_bn(&x, &format!("{block}.conv"), &format!("{block}.bn"), 3)?;
                self.unary("Relu", &y)
            };
        }
        let planes = self.conv_bn(&x, "heads.policy_conv", "heads.policy_bn", 1)?;
        let planes = self.unary("Relu", &planes);
        let flat = self.node("Flatten", &[&planes], "", vec![int_attribute("axis", 1)]);
        let policy = self.linear(&flat, "heads.policy_fc")?;
        let plane = self.conv_bn(&x, "heads.value_conv", "heads.value_bn", 1)?;
        let plane = self.unary("Relu", &plane);
        let flat = self.node("Flatten", &[&plane], "", vec![int_attribute("axis", 1)]);
        let hidden = self.linear(&flat, "heads.value_fc1")?;
        let hidden = self.unary("Relu", &hidden);
        let value = self.linear(&hidden, "heads.value_fc2")?;
        let value = self.unary("Tanh", &value);
        Ok((policy, self.flattened_value(&value)))
    }
}

/// A float32 tensor's type and shape, `None` for the batch's free dimension.
fn value_info(name: &str, dims: &[Option<u64>]) -> Message {
    let mut shape = Message::default();
    for dim in dims {
        let mut d = Message::default();
        match dim {
            Some(size) => d.varint(1, *size),
            None => d.string(2, "batch"),
        }
        shape.message(1, d);
    }
    let mut tensor = Message::default();
    tensor.varint(1, 1);
    tensor.message(2, shape);
    let mut kind = Message::default();
    kind.message(1, tensor);
    let mut info = Message::default();
    info.string(1, name);
    info.message(2, kind);
    info
}

/// A TensorProto of `data_type` (1 float32, 7 int64) holding `raw` little-endian bytes.
fn tensor_proto(name: &str, dims: &[u64], data_type: u64, raw: &[u8]) -> Message {
    let mut tensor = Message::default();
    for &dim in dims {
        tensor.varint(1, dim);
    }
    tensor.varint(2, data_type);
    tensor.string(8, name);
    tensor.bytes(9, raw);
    tensor
}

/// An attribute of type INT.
fn int_attribute(name: &str, value: u64) -> Message {
    let mut attribute = Message::default();
    attribute.string(1, name);
    attribute.varint(3, value);
    attribute.varint(20, 2);
    attribute
}

/// An attribute of type INTS.
fn ints_attribute(name: &str, values: &[u64]) -> Message {
    let mut attribute = Message::default();
    attribute.string(1, name);
    for &value in values {
        attribute.varint(8, value);
    }
    attribute.varint(20, 7);
    attribute
}

/// An attribute of type FLOAT.
fn float_attribute(name: &str, value: f32) -> Message {
    let mut attribute = Message::default();
    attribute.string(1, name);
    attribute.fixed32(2, value.to_bits());
    attribute.varint(20, 1);
    attribute
}

/// A protobuf message being written: the three wire types ONNX's fields need.
#[derive(Default)]
struct Message(Vec<u8>);

impl Message {
    fn tag(&mut self, field: u32, wire_type: u8) {
        self.raw_varint(u64::from(field) << 3 | u64::from(wire_type));
    }

    fn raw_varint(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.0.push((value as u8) | 0x80);
            value >>= 7;
        }
        self.0.push(value as u8);
    }

    fn varint(&mut self, field: u32, value: u64) {
        self.tag(field, 0);
        self.raw_varint(value);
    }

    fn fixed32(&mut self, field: u32, bits: u32) {
        self.tag(field, 5);
        self.0.extend(bits.to_le_bytes());
    }

    fn bytes(&mut self, field: u32, data: &[u8]) {
        self.tag(field, 2);
        self.raw_varint(data.len() as u64);
        self.0.extend(data);
    }

    fn string(&mut self, field: u32, text: &str) {
        self.bytes(field, text.as_bytes());
    }

    fn message(&mut self, field: u32, message: Message) {
        self.bytes(field, &message.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Varints as protobuf's documentation writes them: 150 is `96 01`.
    #[test]
    fn fields_are_written_as_protobuf_encodes_them() {
        let mut message = Message::default();
        message.varint(1, 150);
        message.string(2, "ab");
        message.fixed32(3, 1.0f32.to_bits());
        assert_eq!(
            message.0,
            [0x08, 0x96, 0x01, 0x12, 2, b'a', b'b', 0x1d, 0, 0, 0x80, 0x3f]
        );
    }
}
