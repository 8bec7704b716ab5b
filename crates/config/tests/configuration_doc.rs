//! docs/configuration.md lists every key with its default; this keeps it honest.

use std::collections::BTreeMap;

use zerosum_config::RunConfig;

fn flatten(prefix: &str, value: &toml::Value, out: &mut BTreeMap<String, String>) {
    match value {
        toml::Value::Table(table) if prefix.is_empty() || !is_inline(prefix) => {
            for (key, value) in table {
                let name = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten(&name, value, out);
            }
        }
        _ => {
            out.insert(prefix.to_string(), render(value));
        }
    }
}

/// Keys whose value is a small inline table rather than a section.
fn is_inline(key: &str) -> bool {
    key == "search.fpu"
}

fn render(value: &toml::Value) -> String {
    match value {
        toml::Value::Table(table) => {
            let items: Vec<String> = table
                .iter()
                .map(|(k, v)| format!("{k} = {}", render(v)))
                .collect();
            format!("{{ {} }}", items.join(", "))
        }
        toml::Value::Array(items) => format!(
            "[{}]",
            items.iter().map(render).collect::<Vec<_>>().join(", ")
        ),
        // f32 fields come out as the nearest f64 (0.30000001192092896): print them as f32.
        toml::Value::Float(x) => {
            let short = (*x as f32).to_string();
            if short.contains('.') {
                short
            } else {
                format!("{short}.0")
            }
        }
        other => other.to_string(),
    }
}

#[test]
fn every_key_is_documented_with_its_default() {
    let doc = include_str!("../../../docs/configuration.md");
    let mut documented = BTreeMap::new();
    let mut section = String::new();
    for line in doc.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            section = heading.trim_matches(|c| c == '[' || c == ']').to_string();
            if section == "Top level" {
                section.clear();
            }
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() >= 4 && cells[1].starts_with('`') && cells[2].starts_with('`') {
            let key = cells[1].trim_matches('`');
            let name = if section.is_empty() {
                key.to_string()
            } else {
                format!("{section}.{key}")
            };
            documented.insert(name, cells[2].trim_matches('`').to_string());
        }
    }
    let defaults = toml::Value::try_from(RunConfig::default()).unwrap();
    let mut actual = BTreeMap::new();
    flatten("", &defaults, &mut actual);
    for (key, default) in &actual {
        let Some(doc_default) = documented.get(key) else {
            panic!("docs/configuration.md lacks the key {key} (default {default})");
        };
        assert_eq!(
            doc_default, default,
            "docs/configuration.md gives the wrong default for {key}"
        );
    }
    for key in documented.keys() {
        assert!(
            actual.contains_key(key),
            "docs/configuration.md documents {key}, which does not exist"
        );
    }
}
