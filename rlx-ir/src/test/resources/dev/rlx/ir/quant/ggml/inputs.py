import numpy as np
rng = np.random.default_rng(20240607)
blocks = []
blocks.append(np.zeros(32))                                   # all zero
b = np.array([k + 0.5 for k in range(-16, 16)]); b[0] = -127  # Q8_0 exact halves, d = 1
blocks.append(b)
b = np.array([j - 8 for j in range(16)] + [8, 0.49, 0.5, -0.5, -0.51, 7.4, -7.9] + [0]*9)  # negative max, clamp
blocks.append(b)
b = rng.normal(size=32); b[5] = 4.0; b = np.clip(b, -3.9, 4.0); b[9] = -4.0   # positive max first, tie later
blocks.append(b)
for _ in range(40):
    blocks.append(rng.normal(size=32))
for s in [1e-3, 1e3, 1e-6, 3e-8, 50.0, 1e4]:
    for _ in range(2):
        blocks.append(rng.normal(size=32) * s)
for _ in range(4):
    blocks.append(rng.integers(-20, 21, size=32).astype(float) / 4)
for _ in range(4):
    b = rng.uniform(-1, 1, size=32); i, j = rng.choice(32, 2, replace=False); b[i] = 1.0; b[j] = -1.0
    blocks.append(b)
x = np.concatenate(blocks).astype('<f4')
print(len(blocks), 'blocks')
x.tofile('inputs.f32')
