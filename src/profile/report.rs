//! The text report: time by call site, sorted by the kernel time attributed to it, then
//! totals per kernel.

use std::fmt::Write;

use rustc_hash::FxHashMap as HashMap;

use super::records::TraceOutcome;
use super::session::{KernelEntry, Session, SiteInfo, SiteRow};

/// One row per (file:line, api): sites that differ only by address (e.g. several calls
/// on one line) are merged. Sorted by attributed time, then host time.
pub fn site_rows(s: &Session, located: &[SiteInfo]) -> Vec<SiteRow> {
    let mut rows: Vec<SiteRow> = Vec::new();
    let mut index: HashMap<(String, &'static str), usize> = HashMap::default();
    for (info, t) in located.iter().zip(&s.site_totals) {
        let place = info.place();
        let i = *index.entry((place.clone(), info.api)).or_insert_with(|| {
            rows.push(SiteRow {
                api: info.api,
                place,
                file: info.file.clone(),
                line: info.line,
                calls: 0,
                attributed_ns: 0.0,
                host_ns: 0,
            });
            rows.len() - 1
        });
        rows[i].calls += t.calls;
        rows[i].attributed_ns += t.attributed_ns;
        rows[i].host_ns += t.host_ns;
    }
    rows.sort_by(|a, b| b.attributed_ns.total_cmp(&a.attributed_ns).then(b.host_ns.cmp(&a.host_ns)));
    rows
}

fn ms(ns: f64) -> String {
    format!("{:.3} ms", ns / 1e6)
}

/// The largest shares of a kernel's time, e.g. `sl_exp at a.c:12 61%, sl_add at a.c:13 39%`.
fn top_sites(k: &KernelEntry, located: &[SiteInfo], n: usize) -> String {
    let mut shares: Vec<(u32, f64)> = k.site_ns.iter().map(|(&s, &t)| (s, t)).collect();
    shares.sort_by(|a, b| b.1.total_cmp(&a.1));
    let total: f64 = shares.iter().map(|s| s.1).sum();
    let mut out = shares
        .iter()
        .take(n)
        .map(|&(s, t)| {
            let info = &located[s as usize];
            format!("{} at {} {:.0}%", info.api, info.place(), 100.0 * t / total.max(f64::MIN_POSITIVE))
        })
        .collect::<Vec<_>>()
        .join(", ");
    if shares.len() > n {
        write!(out, ", +{} more", shares.len() - n).expect("writing to a String");
    }
    out
}

pub fn text(s: &Session, rows: &[SiteRow], located: &[SiteInfo], duration_ns: u64) -> String {
    let mut o = String::new();
    let count = |t: TraceOutcome| s.flushes.iter().filter(|f| f.trace == t).count();
    let runs: u64 = s.kernels.iter().map(|k| k.runs).sum();
    let kernel_ns: u64 = s.kernels.iter().map(|k| k.time_ns).sum();
    let calls: u64 = s.site_totals.iter().map(|t| t.calls).sum();
    let w = &mut o;
    let _ = writeln!(w, "Sluice profile: {} in total", ms(duration_ns as f64));
    let _ = writeln!(
        w,
        "{calls} API calls; {} flushes ({} trace-cache hits, {} misses, {} macro replays); {} compiles; {runs} steps run, {} of kernel time",
        s.flushes.len(),
        count(TraceOutcome::Hit),
        count(TraceOutcome::Miss),
        count(TraceOutcome::MacroReplay),
        s.compiles.len(),
        ms(kernel_ns as f64)
    );
    if s.dropped > 0 {
        let _ = writeln!(w, "({} raw records past the cap are not in the JSON file; totals count them)", s.dropped);
    }
    for a in s.applies.iter().filter(|a| a.looped > 0) {
        let info = &located[a.site as usize];
        let _ = writeln!(
            w,
            "{} at {}: {} of its {} pieces run one at a time (no batched form of {})",
            info.api,
            info.place(),
            a.looped,
            a.pieces,
            a.ops.join(", ")
        );
    }
    let _ = writeln!(w, "\nTime by call site (kernel time shared among the calls fused into each kernel by its cost");
    let _ = writeln!(w, "estimate; a kernel's time is its device time where the device measured it, else its wall");
    let _ = writeln!(w, "time; host time is time spent inside the call, waiting included):\n");
    let _ = writeln!(w, "{:>14} {:>6} {:>14} {:>9}  {:<20} site", "attributed", "%", "host", "calls", "api");
    for r in rows {
        let pct = 100.0 * r.attributed_ns / (kernel_ns as f64).max(1.0);
        let _ = writeln!(
            w,
            "{:>14} {:>5.1}% {:>14} {:>9}  {:<20} {}",
            ms(r.attributed_ns),
            pct,
            ms(r.host_ns as f64),
            r.calls,
            r.api,
            r.place
        );
    }
    let _ = writeln!(w, "\nKernels (by time):\n");
    let _ = writeln!(
        w,
        "{:>4} {:<8} {:<8} {:>7} {:>14} {:>14} {:>14} {:>13} {:>12} {:>14}  domain, instructions, sites",
        "#", "executor", "work", "runs", "wall", "cpu", "device", "elements", "MB moved", "compile"
    );
    let mut order: Vec<usize> = (0..s.kernels.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(s.kernels[i].time_ns));
    for i in order {
        let k = &s.kernels[i];
        let shape = if k.work == "kernel" { format!("{}, {} insts; ", k.domain, k.insts) } else { String::new() };
        let _ = writeln!(
            w,
            "{:>4} {:<8} {:<8} {:>7} {:>14} {:>14} {:>14} {:>13} {:>12.1} {:>14}  {shape}{}",
            i,
            k.executor,
            k.work,
            k.runs,
            ms(k.wall_ns as f64),
            if k.cpu_ns > 0 { ms(k.cpu_ns as f64) } else { "-".into() },
            if k.device_ns > 0 { ms(k.device_ns as f64) } else { "-".into() },
            k.elements,
            k.bytes as f64 / 1e6,
            if k.compiles > 0 { ms(k.compile_ns as f64) } else { "-".into() },
            top_sites(k, located, 3)
        );
    }
    o
}
