//! The report's one self-contained HTML page: a summary, tables, and every plot inlined
//! as SVG. It references nothing outside itself.

use std::fmt::Write;

use zerosum_players::arena::signed_elo as signed;
use zerosum_train::history::RunHistory;

use crate::charts::Chart;
use crate::doctor::Finding;

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An SVG document made fit to sit inside HTML: HTML needs no namespace declaration, and
/// dropping it leaves the page without a single URL.
fn inline_svg(svg: &str) -> String {
    svg.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1)
        .replacen(
            "<svg ",
            "<svg role=\"img\" preserveAspectRatio=\"xMidYMid meet\" ",
            1,
        )
}

fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;\
max-width:980px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}\
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;margin:1.6em 0 .4em}\
.facts{color:#555}.headline{font-size:1.25em;font-weight:600;margin:1em 0}\
.note{background:#fff6dd;border:1px solid #e8d28a;padding:.4em .7em}\
.doctor{background:#f4f8ff;border:1px solid #b8cbe8;padding:.5em .7em .5em 2em}\
table{border-collapse:collapse;margin:.5em 0 1em}td,th{padding:.2em .8em;text-align:right;\
border-bottom:1px solid #ddd}th:first-child,td:first-child{text-align:left}\
figure{margin:1.5em 0}figure svg{width:100%;height:auto;border:1px solid #eee}\
figcaption{color:#555;font-size:.92em;margin-top:.3em}footer{color:#777;font-size:.85em;\
margin-top:3em}";

/// The page: `title` heads it, the doctor's `findings` follow; `svgs` are the charts' SVG
/// documents, in chart order.
pub fn page(
    title: &str,
    history: &RunHistory,
    findings: &[Finding],
    charts: &[Chart],
    svgs: &[String],
) -> String {
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{t}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{t}</h1>\n",
        t = escape(title)
    );
    let facts = facts(history);
    let _ = writeln!(html, "<p class=\"facts\">{}</p>", facts.join(" · "));
    doctor_list(&mut html, findings);
    if !history.skipped.is_empty() {
        let lines: Vec<String> = history.skipped.iter().map(|l| l.to_string()).collect();
        let _ = writeln!(
            html,
            "<p class=\"note\">Events that are not JSON were left out: {}.</p>",
            lines.join(", ")
        );
    }
    if let Some(line) = history.ladder_headline() {
        let _ = writeln!(html, "<p class=\"headline\">{}</p>", escape(&line));
    }
    ladder_table(&mut html, history);
    evaluation_table(&mut html, history);
    for (chart, svg) in charts.iter().zip(svgs) {
        let _ = write!(
            html,
            "<figure id=\"{id}\">\n{svg}\n<figcaption>{caption}</figcaption>\n</figure>\n",
            id = chart.name,
            svg = inline_svg(svg),
            caption = escape(&chart.caption),
        );
    }
    let files: Vec<String> = charts
        .iter()
        .map(|c| format!("{0}.png/{0}.svg", c.name))
        .collect();
    let _ = write!(
        html,
        "<footer>Made by <code>zerosum report</code> {version}. The same plots lie beside \
         this page as PNG and SVG files: {files}.</footer>\n</body>\n</html>\n",
        version = env!("CARGO_PKG_VERSION"),
        files = escape(&files.join(", ")),
    );
    html
}

/// The run's headline facts: its game, generation, steps, games and training time.
fn facts(history: &RunHistory) -> Vec<String> {
    let mut facts = Vec::new();
    if let Some(game) = &history.game {
        facts.push(format!("game {}", escape(game)));
    }
    if let Some(generation) = history.last_generation() {
        facts.push(format!("generation {generation}"));
    }
    if let Some(learn) = history.learn.last() {
        facts.push(format!("{} optimizer steps", learn.report.total_steps));
    }
    let games: usize = history.self_play.iter().map(|p| p.report.games).sum();
    if games > 0 {
        facts.push(format!("{games} self-play games"));
    }
    if let Some(g) = history.generations.last() {
        if g.report.train_seconds.is_finite() {
            facts.push(format!("{} of training", duration(g.report.train_seconds)));
        }
    }
    if facts.is_empty() {
        facts.push("no events yet".to_string());
    }
    facts
}

fn ladder_table(html: &mut String, history: &RunHistory) {
    if history.ladder.is_empty() {
        return;
    }
    html.push_str(
        "<h2>Elo ladder</h2>\n<table>\n<tr><th>player</th><th>generation</th><th>Elo</th>\
         <th>95% interval</th><th>games</th></tr>\n",
    );
    for p in &history.ladder {
        let _ = writeln!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{} to {}</td><td>{}</td></tr>",
            escape(&p.rating.player),
            p.generation
                .map(|g| g.to_string())
                .unwrap_or_else(|| "anchor".to_string()),
            signed(p.rating.elo),
            signed(p.rating.low),
            signed(p.rating.high),
            p.rating.games
        );
    }
    html.push_str("</table>\n");
}

fn evaluation_table(html: &mut String, history: &RunHistory) {
    let Some(eval) = history.evaluations.last() else {
        return;
    };
    let _ = write!(
        html,
        "<h2>Latest evaluation (generation {})</h2>\n<table>\n<tr><th>opponent</th>\
         <th>games</th><th>won</th><th>drawn</th><th>lost</th><th>score</th>\
         <th>Elo difference</th></tr>\n",
        eval.generation
    );
    for m in &eval.report.matches {
        let (low, high) = m.elo_interval();
        let _ = writeln!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.0}%</td>\
             <td>{} ({} to {})</td></tr>",
            escape(&m.opponent),
            m.games(),
            m.wins,
            m.draws,
            m.losses,
            100.0 * m.score(),
            signed(m.elo()),
            signed(low),
            signed(high)
        );
    }
    html.push_str("</table>\n");
}

/// The doctor's findings, one item each, its name first.
fn doctor_list(html: &mut String, findings: &[Finding]) {
    if findings.is_empty() {
        return;
    }
    let _ = writeln!(html, "<ul class=\"doctor\">");
    for finding in findings {
        let _ = writeln!(
            html,
            "<li><code>{}</code> {} {}</li>",
            escape(finding.name),
            escape(&finding.evidence),
            escape(&finding.advice)
        );
    }
    let _ = writeln!(html, "</ul>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_inlines() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
        let svg = "<svg width=\"9\" xmlns=\"http://www.w3.org/2000/svg\">\n</svg>";
        let inline = inline_svg(svg);
        assert!(!inline.contains("http"));
        assert!(inline.starts_with("<svg role=\"img\""));
        assert_eq!(duration(75.0), "1 min 15 s");
        assert_eq!(duration(7300.0), "2 h 1 min");
        assert_eq!(signed(-0.2), "+0");
        assert_eq!(signed(-3.0), "-3");
    }
}
