//! Drawing a [`Chart`] with plotters, as SVG text and as PNG bytes.
//!
//! Text is laid out with the bundled DejaVu Sans (registered once as `sans-serif`), so the
//! output is the same on every machine and needs no system fonts.

use std::sync::Once;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::charts::Chart;

/// Width of every plot, in pixels.
pub const WIDTH: u32 = 900;
/// Height of every plot, in pixels.
pub const HEIGHT: u32 = 480;

static FONT: &[u8] = include_bytes!("../fonts/DejaVuSans-subset.ttf");
const FAMILY: &str = "sans-serif";

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
            .map_err(|_| "invalid font")
            .expect("the bundled font is a valid TrueType file");
    });
}

/// The chart as an SVG document.
pub fn svg(chart: &Chart) -> Result<String, String> {
    register_font();
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (WIDTH, HEIGHT)).into_drawing_area();
        draw(&root, chart).map_err(|e| e.to_string())?;
    }
    Ok(text)
}

/// The chart as a PNG file's bytes.
pub fn png(chart: &Chart) -> Result<Vec<u8>, String> {
    register_font();
    let mut pixels = vec![0u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (WIDTH, HEIGHT)).into_drawing_area();
        draw(&root, chart).map_err(|e| e.to_string())?;
    }
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, WIDTH, HEIGHT);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder
        .write_header()
        .and_then(|mut writer| writer.write_image_data(&pixels))
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// The x and y ranges that hold everything drawn, with a margin.
fn ranges(chart: &Chart) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for s in &chart.series {
        xs.extend(s.points.iter().map(|p| p.0));
        ys.extend(s.points.iter().map(|p| p.1));
        ys.extend(s.intervals.iter().flat_map(|i| [i.0, i.1]));
    }
    for b in &chart.bands {
        xs.extend(b.points.iter().map(|p| p.0));
        ys.extend(b.points.iter().flat_map(|p| [p.1, p.2]));
    }
    ys.extend(chart.levels.iter().map(|l| l.y));
    let span = |values: &[f64], integer: bool| -> std::ops::Range<f64> {
        let finite = values.iter().copied().filter(|v| v.is_finite());
        let (low, high) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        if low > high {
            return 0.0..1.0;
        }
        let width = high - low;
        let pad = if integer {
            (width * 0.04).max(0.5)
        } else if width == 0.0 {
            low.abs().max(1.0) * 0.1
        } else {
            width * 0.06
        };
        (low - pad)..(high + pad)
    };
    let x = span(&xs, chart.x_integer);
    let y = match chart.y_range {
        Some((low, high)) => low..high,
        None => span(&ys, false),
    };
    (x, y)
}

/// A tick label: whole numbers plainly, large ones in thousands, others to three places.
fn tick(value: f64) -> String {
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    let magnitude = value.abs();
    if magnitude >= 1e6 {
        trim(format!("{:.2}", value / 1e6)) + "M"
    } else if magnitude >= 1e4 {
        trim(format!("{:.1}", value / 1e3)) + "k"
    } else if (value - value.round()).abs() < 1e-9 {
        format!("{value:.0}")
    } else {
        let decimals = if magnitude >= 10.0 { 1 } else { 3 };
        trim(format!("{value:.decimals$}"))
    }
}

/// A tick label on an axis of whole numbers: none between them.
fn integer_tick(value: f64) -> String {
    if (value - value.round()).abs() < 1e-9 {
        format!("{value:.0}")
    } else {
        String::new()
    }
}

/// A dashed legend mark at `$at`, 20 pixels long like the solid ones.
macro_rules! dashes {
    ($at:expr, $style:expr) => {
        EmptyElement::at($at)
            + PathElement::new(vec![(0, 0), (5, 0)], $style)
            + PathElement::new(vec![(8, 0), (13, 0)], $style)
            + PathElement::new(vec![(16, 0), (21, 0)], $style)
    };
}

/// How a legend entry is marked.
#[derive(Clone, Copy)]
enum Mark {
    Line(RGBColor),
    Dashed(RGBColor),
    Band(RGBColor),
}

fn level_color(chart: &Chart, index: usize) -> RGBColor {
    if chart.levels.len() == 1 {
        RGBColor(90, 90, 90)
    } else {
        COLORS[(index + chart.series.len() + chart.bands.len()) % COLORS.len()]
    }
}

fn legend_entries(chart: &Chart) -> Vec<(&str, Mark)> {
    let bands = chart
        .bands
        .iter()
        .enumerate()
        .filter(|(_, b)| !b.points.is_empty());
    let bands = bands.map(|(i, b)| (b.label.as_str(), Mark::Band(COLORS[i % COLORS.len()])));
    let series = chart.series.iter().enumerate().map(|(i, s)| {
        let color = COLORS[i % COLORS.len()];
        let mark = if s.dashed {
            Mark::Dashed(color)
        } else {
            Mark::Line(color)
        };
        (s.label.as_str(), mark)
    });
    let levels = (chart.levels.iter().enumerate())
        .map(|(i, l)| (l.label.as_str(), Mark::Dashed(level_color(chart, i))));
    bands.chain(series).chain(levels).collect()
}

/// Height of one row of the legend, in pixels.
const LEGEND_ROW: i32 = 20;

/// The plot's drawing context: both axes plain numbers.
type Plot<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// What drawing on a backend can fail with.
type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// The legend laid out in centred rows: per row, (entry, x within the row), and the row's
/// width.
type LegendRows = Vec<(Vec<(usize, i32)>, i32)>;

/// Draws the chart, with its legend in rows under the plot where it hides no data.
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, chart: &Chart) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let label_style: TextStyle = (FAMILY, 13).into();
    let (width, height) = root.dim_in_pixel();
    let entries = legend_entries(chart);
    let rows = legend_rows(root, &entries, &label_style, width)?;
    let legend_height = if rows.is_empty() {
        0
    } else {
        rows.len() as i32 * LEGEND_ROW + 6
    };
    let (plot, legend) = root.split_vertically(height as i32 - legend_height);
    let (x_range, y_range) = ranges(chart);
    let mut ctx = ChartBuilder::on(&plot)
        .caption(&chart.title, (FAMILY, 22))
        .margin(14)
        .x_label_area_size(52)
        .y_label_area_size(76)
        .build_cartesian_2d(x_range, y_range)?;
    draw_mesh(&mut ctx, chart)?;
    draw_bands(&mut ctx, chart)?;
    draw_series(&mut ctx, chart)?;
    draw_levels(&mut ctx, chart)?;
    let label_style = label_style.pos(Pos::new(HPos::Left, VPos::Center));
    draw_legend(&legend, &entries, &rows, &label_style, width)?;
    root.present()
}

/// Lays the legend's entries out in centred rows that fit the plot's width.
fn legend_rows<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    entries: &[(&str, Mark)],
    label_style: &TextStyle,
    width: u32,
) -> Result<LegendRows, DrawingAreaErrorKind<DB::ErrorType>> {
    let mut rows: LegendRows = Vec::new();
    for (index, (label, _)) in entries.iter().enumerate() {
        let (text_width, _) = root.estimate_text_size(label, label_style)?;
        let item = 26 + text_width as i32;
        match rows.last_mut() {
            Some((row, used)) if *used + 22 + item <= width as i32 - 40 => {
                row.push((index, *used + 22));
                *used += 22 + item;
            }
            _ => rows.push((vec![(index, 0)], item)),
        }
    }
    Ok(rows)
}

/// The axes, their labels and the grid; "no data yet" on an empty chart.
fn draw_mesh<DB: DrawingBackend>(ctx: &mut Plot<'_, DB>, chart: &Chart) -> DrawResult<DB> {
    let (x0, x1) = (ctx.x_range().start, ctx.x_range().end);
    let (y0, y1) = (ctx.y_range().start, ctx.y_range().end);
    let integer = chart.x_integer;
    let x_format = move |x: &f64| {
        if integer {
            integer_tick(*x)
        } else {
            tick(*x)
        }
    };
    ctx.configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .x_label_formatter(&x_format)
        .y_label_formatter(&|y| tick(*y))
        .x_labels(if integer {
            ((x1 - x0) as usize + 1).min(12)
        } else {
            10
        })
        .axis_desc_style((FAMILY, 15))
        .label_style((FAMILY, 13))
        .bold_line_style(RGBColor(215, 215, 215))
        .light_line_style(RGBColor(244, 244, 244))
        .draw()?;
    if chart.is_empty() {
        ctx.draw_series(std::iter::once(Text::new(
            "no data yet",
            (x0 + (x1 - x0) * 0.42, y0 + (y1 - y0) * 0.5),
            (FAMILY, 20).into_font().color(&RGBColor(120, 120, 120)),
        )))?;
    }
    Ok(())
}

/// The shaded ranges (a band per series of `[low, high]` points).
fn draw_bands<DB: DrawingBackend>(ctx: &mut Plot<'_, DB>, chart: &Chart) -> DrawResult<DB> {
    for (index, band) in chart.bands.iter().enumerate() {
        if band.points.is_empty() {
            continue;
        }
        let color = COLORS[index % COLORS.len()];
        let mut outline: Vec<(f64, f64)> = band.points.iter().map(|p| (p.0, p.1)).collect();
        outline.extend(band.points.iter().rev().map(|p| (p.0, p.2)));
        if band.points.len() == 1 {
            // A single generation: a short bar rather than a polygon with no area.
            let p = band.points[0];
            outline = vec![
                (p.0 - 0.1, p.1),
                (p.0 + 0.1, p.1),
                (p.0 + 0.1, p.2),
                (p.0 - 0.1, p.2),
            ];
        }
        ctx.draw_series(std::iter::once(Polygon::new(
            outline,
            color.mix(0.18).filled(),
        )))?;
    }
    Ok(())
}

/// The lines, their points where there are few, and their error bars.
fn draw_series<DB: DrawingBackend>(ctx: &mut Plot<'_, DB>, chart: &Chart) -> DrawResult<DB> {
    // Series with intervals at the same whole-number x are spread apart a little, so
    // that their error bars do not hide each other.
    let with_bars = chart
        .series
        .iter()
        .filter(|s| !s.intervals.is_empty())
        .count();
    let mut bar_index = 0;
    for (index, series) in chart.series.iter().enumerate() {
        let color = COLORS[index % COLORS.len()];
        let style = color.stroke_width(2);
        let shift = if chart.x_integer && with_bars > 1 && !series.intervals.is_empty() {
            bar_index += 1;
            (bar_index as f64 - 1.0 - (with_bars as f64 - 1.0) / 2.0) * 0.06
        } else {
            0.0
        };
        let points: Vec<(f64, f64)> = series.points.iter().map(|p| (p.0 + shift, p.1)).collect();
        if series.dashed {
            ctx.draw_series(DashedLineSeries::new(points.iter().copied(), 6, 4, style))?;
            continue;
        }
        ctx.draw_series(LineSeries::new(points.iter().copied(), style))?;
        if points.len() <= 60 {
            ctx.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        }
        if series.intervals.len() == points.len() {
            draw_error_bars(ctx, &points, &series.intervals, color)?;
        }
    }
    Ok(())
}

/// A vertical bar with end ticks at each point's interval, cut to the plot.
fn draw_error_bars<DB: DrawingBackend>(
    ctx: &mut Plot<'_, DB>,
    points: &[(f64, f64)],
    intervals: &[(f64, f64)],
    color: RGBColor,
) -> DrawResult<DB> {
    let (y0, y1) = (ctx.y_range().start, ctx.y_range().end);
    let bars = points.iter().zip(intervals).filter_map(|(p, i)| {
        let (low, high) = (i.0.max(y0), i.1.min(y1));
        (low.is_finite() && high.is_finite() && low < high).then_some((p.0, low, high))
    });
    for (x, low, high) in bars {
        ctx.draw_series([PathElement::new(
            vec![(x, low), (x, high)],
            color.stroke_width(1),
        )])?;
        for end in [low, high] {
            ctx.draw_series(std::iter::once(
                EmptyElement::at((x, end))
                    + PathElement::new(vec![(-4, 0), (4, 0)], color.stroke_width(1)),
            ))?;
        }
    }
    Ok(())
}

/// The dashed horizontal reference levels.
fn draw_levels<DB: DrawingBackend>(ctx: &mut Plot<'_, DB>, chart: &Chart) -> DrawResult<DB> {
    let (x0, x1) = (ctx.x_range().start, ctx.x_range().end);
    for (index, level) in chart.levels.iter().enumerate() {
        let style = level_color(chart, index).stroke_width(1);
        ctx.draw_series(DashedLineSeries::new(
            [(x0, level.y), (x1, level.y)],
            6,
            5,
            style,
        ))?;
    }
    Ok(())
}

/// The legend's rows, each centred, a mark and a label per entry.
fn draw_legend<DB: DrawingBackend>(
    legend: &DrawingArea<DB, Shift>,
    entries: &[(&str, Mark)],
    rows: &LegendRows,
    label_style: &TextStyle,
    width: u32,
) -> DrawResult<DB> {
    for (row_index, (row, row_width)) in rows.iter().enumerate() {
        let left = (width as i32 - row_width) / 2;
        let y = row_index as i32 * LEGEND_ROW + LEGEND_ROW / 2;
        for &(entry, x) in row {
            let (label, mark) = entries[entry];
            let x = left + x;
            match mark {
                Mark::Line(color) => {
                    legend.draw(&PathElement::new(
                        vec![(x, y), (x + 20, y)],
                        color.stroke_width(2),
                    ))?;
                    legend.draw(&Circle::new((x + 10, y), 3, color.filled()))?;
                }
                Mark::Dashed(color) => legend.draw(&dashes!((x, y), color.stroke_width(1)))?,
                Mark::Band(color) => legend.draw(&Rectangle::new(
                    [(x, y - 5), (x + 20, y + 5)],
                    color.mix(0.3).filled(),
                ))?,
            }
            legend.draw(&Text::new(label, (x + 26, y), label_style.clone()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_read_well() {
        assert_eq!(tick(3.0), "3");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(1.5000001), "1.5");
        assert_eq!(tick(35_000.0), "35k");
        assert_eq!(tick(12_500.0), "12.5k");
        assert_eq!(tick(2_500_000.0), "2.5M");
        assert_eq!(tick(-200.0), "-200");
        assert_eq!(integer_tick(2.0), "2");
        assert_eq!(integer_tick(2.5), "");
    }
}
