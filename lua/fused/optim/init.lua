-- fused.optim: one file per optimizer in this folder, loaded on first use (fused.optim.Adam).
return require('fused.lazy')('fused.optim')
