//! docs/run-directory.md's recipe for loading a checkpoint in PyTorch, run as written in
//! the project's virtual environment (scripts/setup.sh makes it): the module it defines,
//! given a checkpoint's weights, computes what zerosum computes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{batch, flat, new_model, observations, positions, seeded_torch, tiny_config};
use zerosum_games::connect_four::ConnectFour;
use zerosum_nn::{Family, ModelConfig};

/// The repository root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Python block of docs/run-directory.md.
fn recipe() -> String {
    let doc = std::fs::read_to_string(root().join("docs/run-directory.md")).unwrap();
    let start = doc.find("```python\n").expect("the doc has a Python block") + 10;
    let end = start + doc[start..].find("```").expect("the block is closed");
    doc[start..end].to_string()
}

/// What the script does after the recipe: the recipe's `net` on the observations in the
/// file named by its argument, printed as the largest difference from zerosum's outputs.
const COMPARE: &str = r#"
import sys
data = json.load(open(sys.argv[1]))
obs = torch.tensor(data["obs"]).view(-1, *meta["obs_shape"])
with torch.no_grad():
    p, v = net(obs)
dp = (p - torch.tensor(data["logits"]).view_as(p)).abs().max().item()
dv = (v - torch.tensor(data["values"])).abs().max().item()
print(max(dp, dv))
"#;

#[test]
fn the_documented_pytorch_module_computes_what_zerosum_computes() {
    let python = root().join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/setup.sh",
        python.display()
    );
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pytorch-recipe");
    std::fs::create_dir_all(&dir).unwrap();
    let game = ConnectFour::new();
    for family in [Family::Resnet, Family::Conv] {
        let _torch = seeded_torch(11);
        let config = ModelConfig {
            blocks: 2,
            ..tiny_config(family)
        };
        let model = new_model(&game, &config);
        let batch = batch(&positions(&game, 8, 5));
        let obs = observations(&batch);
        // Passes in training mode move batch norm's running statistics off their initial
        // values, so the recipe must load them too.
        for _ in 0..3 {
            let _guard = tch::no_grad_guard();
            let _ = model.forward_t(&obs, true);
        }
        let out = {
            let _guard = tch::no_grad_guard();
            model.forward_t(&obs, false)
        };
        let base = dir.join(format!("{family:?}"));
        model.save(&base).unwrap();
        let data = dir.join(format!("{family:?}-outputs.json"));
        let json = serde_json::json!({
            "obs": flat(std::slice::from_ref(&obs)),
            "logits": flat(&[out.policy]),
            "values": flat(&[out.value]),
        });
        std::fs::write(&data, json.to_string()).unwrap();
        // The recipe follows the pointer a run keeps in checkpoints/latest.
        let pointer = serde_json::json!({ "checkpoint": format!("{family:?}"), "generation": 0 });
        std::fs::write(dir.join("latest"), pointer.to_string()).unwrap();
        let script = recipe().replace(
            "runs/connect4/checkpoints",
            dir.to_str().expect("a UTF-8 temporary path"),
        ) + COMPARE;
        let output = Command::new(&python)
            .arg("-c")
            .arg(&script)
            .arg(&data)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{family:?}: {}{stdout}",
            String::from_utf8_lossy(&output.stderr)
        );
        let difference: f64 = stdout.trim().parse().unwrap();
        assert!(
            difference < 1e-5,
            "{family:?}: outputs differ by {difference}"
        );
    }
}
