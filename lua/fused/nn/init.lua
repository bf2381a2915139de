-- fused.nn: one file per module in this folder, loaded on first use (fused.nn.LLTMCell).
return require('fused.lazy')('fused.nn')
