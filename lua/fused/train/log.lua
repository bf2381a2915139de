-- The CSV log of a training run (step,loss,heldout,seconds,tokens_per_s: one line a step, the
-- held-out loss only at evaluations) and its plot with gnuplot.
--
--   local log = Log.open('losses.csv', {append = true})   -- append: continue an existing log
--   log:write(step, loss, heldout_or_nil, seconds, tokens_per_s)
--   log:close()
--   Log.plot('losses.csv', 'losses.png', {title =, ylabel =, baseline =, baseline_text =})
local file = require 'fused.file'

local M = {}
local Log = {}
Log.__index = Log

local HEADER = 'step,loss,heldout,seconds,tokens_per_s\n'

-- A log at path; with opts.append, one that exists is continued rather than replaced, if it is
-- a log (its first line the header): any other file is an error, never appended to.
function M.open(path, opts)
  local existing = opts and opts.append and file.exists(path)
  if existing then
    local reader = file.open('Log.open', path) -- refuses a directory or a FIFO without blocking
    local first = reader.size >= #HEADER and reader:read(0, #HEADER)
    reader:close()
    if first ~= HEADER then
      error(string.format("Log.open: %s exists and is not a log (its first line is not '%s'): "
                          .. 'not appended to', path, HEADER:sub(1, -2)), 2)
    end
  end
  local f, err = io.open(path, existing and 'a' or 'w')
  if not f then error('Log.open: ' .. err, 2) end
  if not existing then f:write(HEADER) end
  return setmetatable({ f = f, path = path }, Log)
end

function Log:write(step, loss, heldout, seconds, rate)
  self.f:write(string.format('%d,%.9g,%s,%.3f,%.0f\n', step, loss,
                             heldout and string.format('%.9g', heldout) or '', seconds, rate))
end

function Log:close() self.f:close() end

function M.have_gnuplot() return os.execute('command -v gnuplot >/dev/null 2>&1') == 0 end

-- Plots the log at csv_path to the PNG png_path: the training loss, the held-out points and
-- the baseline as a dashed line (chart: title, ylabel, baseline, baseline_text). Returns
-- whether gnuplot wrote it.
function M.plot(csv_path, png_path, chart)
  local function quoted(s) return "'" .. s:gsub("'", "''") .. "'" end
  local script = table.concat({
    'set terminal pngcairo size 900,520',
    'set output ' .. quoted(png_path),
    "set datafile separator ','",
    'set key top right', 'set logscale y', 'set grid',
    "set xlabel 'step'", 'set ylabel ' .. quoted(chart.ylabel),
    'set title ' .. quoted(chart.title),
    string.format("plot %s using 1:2 with lines lc rgb '#7090c0' title 'training loss', "
                  .. "'' using 1:($3 > 0 ? $3 : NaN) with linespoints lc rgb '#c03030' pt 7 "
                  .. "title 'held-out', %.17g with lines dt 2 lc rgb '#404040' title %s",
                  quoted(csv_path), chart.baseline,
                  quoted('baseline (' .. chart.baseline_text .. ')')),
  }, '\n')
  os.remove(png_path)
  local gnuplot = io.popen('gnuplot >/dev/null 2>&1', 'w') -- its messages would break the output
  gnuplot:write(script, '\n')
  gnuplot:close()
  local png = io.open(png_path, 'rb')
  if png then png:close() end
  return png ~= nil
end

return M
