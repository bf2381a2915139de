-- The linear scan as a module (fused.scan, ops/linear_scan.lua): every h_t = a_t * h_{t-1} + b_t
-- over the first dim of a and b (T, ...), from h0 (one step's shape; nil: zeros). No
-- parameters: the coefficients come from the layers before it.
--
--   local scan = fused.nn.Scan({ reverse = false })
--   local h = scan:forward(a, b, h0, { lengths = {...}, resets = r }) -- (T, B, ...) with those
--   local d_a, d_b, d_h0 = scan:backward(d_h)                           -- d_h0 nil without h0
local Module = require 'fused.nn.Module'
local ops = require 'fused.ops'
local options = require 'fused.options'
local inputs = require 'fused.nn.inputs'
local scan_options = require 'fused.ops.scan_options'
local lengths_ = require 'fused.functional.lengths'

local Scan = Module:extend('Scan')

function Scan:__init(opts, ...)
  inputs.no_more('Scan', 1, ...)
  opts = options.check(opts, 'Scan', { 'reverse' })
  if opts.reverse ~= nil and type(opts.reverse) ~= 'boolean' then
    error("Scan: option 'reverse' expected a boolean, got " .. type(opts.reverse), 3)
  end
  self.reverse = opts.reverse or false
end

function Scan:forward(a, b, h0, opts, ...)
  local fn = 'Scan:forward'
  inputs.no_more(fn, 4, ...)
  inputs.floating(a, fn, 'a')
  inputs.shaped(b, fn, 'b', a, a:shape(), "a's")
  if h0 ~= nil then
    local step = a:shape()
    table.remove(step, 1)
    inputs.shaped(h0, fn, 'h0', a, step, 'one step of a')
  end
  opts = options.check(opts, fn, { 'lengths', 'resets' })
  local scan_opts = { lengths = opts.lengths, resets = opts.resets, reverse = self.reverse }
  local T, B = scan_options.rows_of(a)
  -- its errors name Scan:forward; backward goes through copies of the lengths and resets,
  -- whatever the caller writes in theirs after
  local lengths, resets = scan_options.check(scan_opts, fn, a, 'a', T, B, a.ndim >= 2)
  scan_opts.lengths = lengths and lengths_.list(lengths, B)
  scan_opts.resets = resets and resets:clone()
  local h = ops.scan(a, b, h0, scan_opts)
  self.saved = { a = a, h = h, h0 = h0, opts = scan_opts }
  return h
end

function Scan:backward(d_h)
  local s = self:expect_saved()
  self:expect_d_output(d_h, s.h:shape(), 'Scan:backward', s.h)
  return ops.scan_backward(d_h, s.a, s.h, s.h0, s.opts)
end

function Scan:extra_repr() return self.reverse and '(reverse=true)' or '' end

return Scan
