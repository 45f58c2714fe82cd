//! Many application threads issuing ops and reads at once, on shared and private arrays,
//! each with its own scopes; every result is checked.

mod common;

use common::reference as r;
use common::*;
use rand::Rng;
use sluice::*;

#[test]
fn many_threads_issue_ops_and_reads() {
    let mut rng = rng("many_threads_issue_ops_and_reads");
    let shared = rand_arr(&mut rng, SL_F64, &[3000], -2.0, 2.0, false);
    let hs = shared.upload();
    let seeds: Vec<u64> = (0..8).map(|_| rng.random()).collect();
    std::thread::scope(|scope| {
        for (t, seed) in seeds.into_iter().enumerate() {
            let shared = &shared;
            scope.spawn(move || {
                use rand::SeedableRng;
                let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
                for it in 0..60 {
                    ok(sl_scope_begin());
                    let mine = rand_arr(&mut rng, SL_F64, &[3000], -2.0, 2.0, false);
                    let hm = mine.upload();
                    let (op, s) =
                        ([SL_ADD, SL_MUL, SL_SUB, SL_MAX][rng.random_range(0..4)], rng.random_range(-3.0..3.0));
                    let (mut a, mut b, mut c, mut total) = (0, 0, 0, 0);
                    ok(sl_binary(op, hm, hs, &mut a));
                    ok(sl_mul_scalar(a, s, &mut b));
                    ok(sl_tanh(b, &mut c));
                    ok(sl_sum(c, SL_ALL_DIMS, &mut total));
                    let want_c = r::map1(&r::map2(&mine, shared, |x, y| r::binary(op, x, y)), |v| {
                        r::unary(SL_TANH, r::binary(SL_MUL, v, V::F64(s)))
                    });
                    // Read the element-wise result and the sum, in an order that varies.
                    if it % 2 == 0 {
                        assert_close(
                            &format!("thread {t} it {it}"),
                            &download(c),
                            &want_c,
                            max_ulps(Inexact::Unary(SL_TANH), SL_F64),
                        );
                    }
                    let got = download(total).v[0].f();
                    let want: f64 = want_c.v.iter().map(|v| v.f()).sum();
                    assert!((got - want).abs() < 1e-9, "thread {t} it {it}: {got} vs {want}");
                    ok(sl_scope_end());
                }
            });
        }
    });
    release(&[hs]);
}
