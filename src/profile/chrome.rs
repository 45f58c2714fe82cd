//! The Chrome trace-event file (JSON object format, complete "X" events): API calls,
//! flushes and compiles on the thread that made them, kernel runs on one track per
//! executor, kernels the device timed on one more track per executor, transfers on a
//! track of their own. Opens in Perfetto or chrome://tracing.

use serde_json::{Value, json};

use super::session::{Session, SiteInfo};

/// Track ids past the threads': one per executor, then transfers, then the executors'
/// device tracks.
const EXECUTOR_TRACKS: u64 = 1 << 20;
const TRANSFER_TRACK: u64 = 2 << 20;
const DEVICE_TRACKS: u64 = 3 << 20;

fn us(ns: u64) -> f64 {
    ns as f64 / 1e3
}

fn event(name: String, cat: &str, tid: u64, start_ns: u64, dur_ns: u64, args: Value) -> Value {
    json!({"name": name, "cat": cat, "ph": "X", "pid": 1, "tid": tid, "ts": us(start_ns), "dur": us(dur_ns), "args": args})
}

fn track_name(tid: u64, name: &str) -> Value {
    json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": tid, "args": {"name": name}})
}

pub fn trace(s: &Session, sites: &[SiteInfo], threads: &[String]) -> Value {
    let mut events = vec![json!({"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "sluice"}})];
    events.extend(threads.iter().enumerate().map(|(i, name)| track_name(i as u64, name)));
    let mut executors: Vec<&str> = Vec::new();
    for k in &s.kernels {
        if !executors.contains(&k.executor) {
            executors.push(k.executor);
        }
    }
    let position = |e: &str| executors.iter().position(|x| *x == e).unwrap_or(0) as u64;
    let executor_track = |e: &str| EXECUTOR_TRACKS + position(e);
    let device_track = |e: &str| DEVICE_TRACKS + position(e);
    events.extend(executors.iter().map(|e| track_name(executor_track(e), &format!("{e} executor: steps"))));
    for e in executors.iter().filter(|e| s.kernels.iter().any(|k| k.executor == **e && k.device_ns > 0)) {
        events.push(track_name(device_track(e), &format!("{e} device: kernels (device time)")));
    }
    if !s.transfers.is_empty() {
        events.push(track_name(TRANSFER_TRACK, "transfers"));
    }
    for c in &s.calls {
        let site = &sites[c.site as usize];
        let args = json!({"site": site.place()});
        events.push(event(site.api.to_string(), "call", c.thread as u64, c.start_ns, c.dur_ns, args));
    }
    for f in &s.flushes {
        let args = json!({"nodes": f.nodes, "trace": f.trace, "plan_ns": f.plan_ns});
        let dur = f.end_ns.saturating_sub(f.start_ns);
        events.push(event("flush".into(), "flush", f.thread as u64, f.start_ns, dur, args));
    }
    for c in &s.compiles {
        let args = json!({"executor": c.executor, "kernel": c.kernel, "origin": c.origin});
        events.push(event(
            format!("compile kernel {}", c.kernel),
            "compile",
            c.thread as u64,
            c.start_ns,
            c.dur_ns,
            args,
        ));
    }
    for st in &s.steps {
        let k = &s.kernels[st.kernel as usize];
        let fused: Vec<String> = st
            .sites
            .iter()
            .map(|sh| {
                let site = &sites[sh.site as usize];
                format!("{} at {} ({:.0}%)", site.api, site.place(), 100.0 * sh.weight)
            })
            .collect();
        let args = json!({
            "kernel": st.kernel, "thread": st.thread, "elements": st.elements, "bytes": st.bytes,
            "cpu_ns": st.cpu_ns, "sites": fused,
        });
        let name = format!("{} {}", k.work, st.kernel);
        if let (Some(start), Some(dur)) = (st.device_start_ns, st.device_ns) {
            events.push(event(name.clone(), "device", device_track(st.executor), start, dur, args.clone()));
        }
        events.push(event(name, "step", executor_track(st.executor), st.start_ns, st.wall_ns, args));
    }
    for t in &s.transfers {
        let args = json!({"bytes": t.bytes, "thread": t.thread});
        events.push(event(t.kind.to_string(), "transfer", TRANSFER_TRACK, t.start_ns, t.dur_ns, args));
    }
    json!({"traceEvents": events, "displayTimeUnit": "ns"})
}
