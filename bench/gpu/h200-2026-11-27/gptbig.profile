# tidal profile v2: per op site, measured (CUDA events, host clock for launches); the first iteration left out where the site ran later
# made by bench/gpu/h200-2026-11-27/steady_profile.py from a v1 profile and a trace
# file:line	count	mean_seconds	launch_seconds	label
samples/gpt/train.cu:561	19	0.00255602246	8.7345e-06	fused_classifier -> fused_classifier_kernel
samples/gpt/train.cu:407	19	5.74117493e-06	9.3315e-06	encoder_backward -> encoder_backward_kernel
samples/gpt/train.cu:899	19	3.32054498e-05	1.8325e-05	gpt_zero_grad -> cudaMemset
samples/gpt/train.cu:527	152	0.00013779845	9.678e-06	attention_backward -> softmax_backward_kernel
samples/gpt/train.cu:475	152	1.07898875e-05	8.7545e-06	attention_forward -> permute_kernel
samples/gpt/train.cu:775	1	0.0188334408	0	gpt_build -> cudaMemcpy
samples/gpt/train.cu:400	19	4.48167744e-05	9.5335e-06	encoder_forward -> encoder_forward_kernel
samples/gpt/train.cu:988	304	1.75446813e-05	6.9865e-06	adamw_update -> adamw_kernel
samples/gpt/train.cu:531	152	1.96174751e-05	2.0669e-05	attention_backward -> cublasSgemmStridedBatched
samples/gpt/train.cu:483	152	2.26201375e-05	2.2277e-05	attention_forward -> cublasSgemmStridedBatched
samples/gpt/train.cu:781	1	7.78239965e-05	0	gpt_build -> cudaMemset
samples/gpt/train.cu:486	152	0.000158039556	9.217e-06	attention_forward -> softmax_forward_kernel
samples/gpt/train.cu:535	152	1.98023188e-05	1.6202e-05	attention_backward -> cublasSgemmStridedBatched
samples/gpt/train.cu:783	1	6.14719987e-05	0	gpt_build -> cudaMemset
samples/gpt/train.cu:538	152	1.10601938e-05	8.4035e-06	attention_backward -> permute_backward_kernel
samples/gpt/train.cu:438	627	0.000112356423	2.2677e-05	matmul_forward -> cublasSgemm_v2
samples/gpt/train.cu:491	152	1.85946625e-05	1.9488e-05	attention_forward -> cublasSgemmStridedBatched
samples/gpt/train.cu:544	304	8.04097813e-06	7.911e-06	residual_forward -> residual_forward_kernel
samples/gpt/train.cu:441	608	9.93297656e-06	7.12e-06	matmul_forward -> add_bias_kernel
samples/gpt/train.cu:829	19	4.33908498e-05	1.6772e-05	gpt_forward -> cudaMemcpy
samples/gpt/train.cu:494	152	7.99272493e-06	7.8575e-06	attention_forward -> unpermute_kernel
samples/gpt/train.cu:427	323	0.000180430889	7.9145e-06	layernorm_backward -> layernorm_backward_dparams_kernel
samples/gpt/train.cu:453	627	8.14815686e-05	1.86725e-05	matmul_backward -> cublasSgemm_v2
samples/gpt/train.cu:830	19	1.1675525e-05	7.3385e-06	gpt_forward -> cudaMemcpy
samples/gpt/train.cu:516	152	8.19814379e-06	8.2265e-06	attention_backward -> unpermute_backward_kernel
samples/gpt/train.cu:549	144	1.39313375e-05	8.963e-06	gelu_forward -> gelu_forward_kernel
samples/gpt/train.cu:424	323	0.000478304445	8.0155e-06	layernorm_backward -> layernorm_backward_dinp_kernel
samples/gpt/train.cu:456	627	8.12739615e-05	1.72125e-05	matmul_backward -> cublasSgemm_v2
samples/gpt/train.cu:889	19	5.50447997e-05	1.205525e-05	gpt_forward -> cudaMemcpy
samples/gpt/train.cu:520	152	2.30079689e-05	1.85435e-05	attention_backward -> cublasSgemmStridedBatched
samples/gpt/train.cu:554	152	2.70117624e-05	7.1435e-06	gelu_backward -> gelu_backward_kernel
samples/gpt/train.cu:415	323	0.000331928255	8.0635e-06	layernorm_forward -> layernorm_forward_kernel
samples/gpt/train.cu:898	19	8.30761249e-05	3.25815e-05	gpt_zero_grad -> cudaMemset
samples/gpt/train.cu:524	152	2.08290625e-05	1.539e-05	attention_backward -> cublasSgemmStridedBatched
samples/gpt/train.cu:459	608	5.60160828e-05	7.249e-06	matmul_backward -> matmul_backward_bias_kernel
