fn main() {
    let n = 1usize << 24;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut y = vec![0f32; n];
    for _ in 0..3 {
        let t0 = std::time::Instant::now();
        for _ in 0..20 {
            for (o, &v) in y.iter_mut().zip(&x) { *o = v * 1.5 + 0.25; }
        }
        println!("direct: {:?}", t0.elapsed() / 20);
        let t0 = std::time::Instant::now();
        let mut t1 = vec![0f32; 1024];
        let mut t2 = vec![0f32; 1024];
        for _ in 0..20 {
            for c in 0..n / 1024 {
                let xs = &x[c * 1024..(c + 1) * 1024];
                for (o, &v) in t1.iter_mut().zip(xs) { *o = v * 1.5; }
                for (o, &v) in t2.iter_mut().zip(&t1) { *o = v + 0.25; }
                y[c * 1024..(c + 1) * 1024].copy_from_slice(&t2);
            }
        }
        println!("chunked: {:?}", t0.elapsed() / 20);
    }
    std::hint::black_box(&y);
}
