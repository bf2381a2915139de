-- Torch7's `cunn` inside `fused th`: nn's modules run on fused's CUDA device once moved there
-- with :cuda(), so cunn is nn with cutorch loaded (and fails as cutorch does where there is no
-- device).
require 'cutorch'
return require 'nn'
