# Lesson 10, the gradient noise scale (40 points): sourced by grading/lessons/10.sh.
C="$PROGS/grading/check10_noise"
check noise_formulas 10 60 "the unbiased estimates of |G|² and tr(Σ) from |G_b|² and |G_B|² (stated and random cases, against the formulas in double)" -- "$C" formulas
check noise_averages 10 60 "running averages of both estimates and the ratio of the averages (3 decays × 60 updates)" -- "$C" averages
check noise_synthetic 10 60 "synthetic gradients G + noise with tr(Σ)/|G|² = 32: the estimate within 15%" -- "$C" synthetic
check noise_ddp 10 120 "train_noise --noise-scale on 2 ranks with clipping: |G_b|², |G_B|² (unclipped) as the reference's, B_simple from them" -- sh "$GRADING/lessons/10-noise-ddp.sh"
