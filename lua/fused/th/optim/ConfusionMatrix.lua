-- optim.ConfusionMatrix(nclasses or classes[, classes]), torch/optim's ConfusionMatrix.lua:
-- mat[target][prediction] counts (int64); add(prediction, target) takes a class number or a
-- vector of scores (its largest entry the class) for each, batchAdd(predictions, targets) a
-- batch of them (a target below 1 is skipped); updateValids() fills valids (per-class
-- accuracy), unionvalids, totalValid, averageValid, averageUnionValid; print(conf) shows them
-- as Torch7 did.
local fused = require 'fused'
local class = require 'fused.th.class'

return function(optim)
  local ConfusionMatrix = class.class('optim.ConfusionMatrix', optim)

  function ConfusionMatrix:__init(nclasses, classes)
    if type(nclasses) == 'table' then nclasses, classes = #nclasses, nclasses end
    if type(nclasses) ~= 'number' or nclasses < 1 or nclasses ~= math.floor(nclasses) then
      error("optim.ConfusionMatrix: argument 'nclasses' expected a positive integer or a list of class names, got "
            .. tostring(nclasses), 3)
    end
    self.mat = fused.zeros({ nclasses, nclasses }, { dtype = 'int64' })
    self.valids = fused.zeros({ nclasses })
    self.unionvalids = fused.zeros({ nclasses })
    self.nclasses = nclasses
    self.totalValid = 0
    self.averageValid = 0
    self.classes = classes or {}
  end

  -- A class number from a number or a vector of scores (the first largest, as Torch7's max).
  local function class_of(v, what)
    if type(v) == 'number' then return v end
    if not fused.is_tensor(v) or v:dim() ~= 1 then
      error(string.format('optim.ConfusionMatrix:add: %s expected a class number or a vector of scores, got %s', what,
                          fused.is_tensor(v) and v:dim() .. ' dims' or type(v)), 4)
    end
    local values, best = v:totable(), 1
    for i = 2, #values do if values[i] > values[best] then best = i end end
    return best
  end

  function ConfusionMatrix:_add(p, t)
    if t > 0 then
      if p < 1 or p > self.nclasses or t > self.nclasses or p ~= math.floor(p) or t ~= math.floor(t) then
        error(string.format('optim.ConfusionMatrix: class %s (target %s) is not one of 1 .. %d', p, t, self.nclasses), 4)
      end
      self.mat[t][p] = self.mat[t][p] + 1
    end
  end

  function ConfusionMatrix:add(prediction, target)
    self:_add(class_of(prediction, 'prediction'), class_of(target, 'target'))
  end

  -- Rows of scores (or class numbers, one column or a vector) for predictions and targets.
  local function classes_of(v, what)
    if v:dim() == 1 then return v:totable() end
    if v:dim() == 2 and v:size(2) == 1 then return v:view(-1):totable() end
    if v:dim() ~= 2 then error('optim.ConfusionMatrix:batchAdd: ' .. what .. ' has invalid number of dimensions', 4) end
    local list = {}
    for i = 1, v:size(1) do list[i] = class_of(v[i], what) end
    return list
  end

  function ConfusionMatrix:batchAdd(predictions, targets)
    local preds, targs = classes_of(predictions, 'predictions'), classes_of(targets, 'targets')
    for i = 1, #targs do self:_add(preds[i], targs[i]) end
  end

  function ConfusionMatrix:zero()
    self.mat:zero_()
    self.valids:zero_()
    self.unionvalids:zero_()
    self.totalValid = 0
    self.averageValid = 0
  end

  function ConfusionMatrix:updateValids()
    local mat, n = self.mat:totable(), self.nclasses
    local total, all, rows, cols = 0, 0, {}, {}
    for t = 1, n do rows[t], cols[t] = 0, 0 end
    for t = 1, n do
      for p = 1, n do
        rows[t], cols[p], all = rows[t] + mat[t][p], cols[p] + mat[t][p], all + mat[t][p]
      end
    end
    local valids, unions = {}, {}
    for t = 1, n do
      valids[t] = mat[t][t] / rows[t]
      unions[t] = mat[t][t] / (rows[t] + cols[t] - mat[t][t])
      total = total + mat[t][t]
    end
    self.valids:copy_(fused.tensor(valids))
    self.unionvalids:copy_(fused.tensor(unions))
    self.totalValid = total / all
    local sum, count, usum, ucount = 0, 0, 0, 0
    for t = 1, n do
      local v, u = self.valids[t], self.unionvalids[t]
      if v == v then sum, count = sum + v, count + 1 end
      if v == v and u == u then usum, ucount = usum + u, ucount + 1 end
    end
    self.averageValid = sum / count
    self.averageUnionValid = usum / ucount
  end

  function ConfusionMatrix:__tostring__()
    self:updateValids()
    local str, n = { 'ConfusionMatrix:\n', '[' }, self.nclasses
    local maxCnt = fused.max(self.mat)
    local nDigits = math.max(8, 1 + math.ceil(math.log10(maxCnt)))
    for t = 1, n do
      local pclass = string.format('%2.3f', self.valids[t] * 100)
      str[#str + 1] = t == 1 and '[' or ' ['
      for p = 1, n do str[#str + 1] = string.format('%' .. nDigits .. 'd', self.mat[t][p]) end
      local close = t == n and ']]  ' or ']   '
      if self.classes and self.classes[1] then
        str[#str + 1] = close .. pclass .. '% \t[class: ' .. (self.classes[t] or '') .. ']\n'
      else
        str[#str + 1] = close .. pclass .. '% \n'
      end
    end
    str[#str + 1] = ' + average row correct: ' .. (self.averageValid * 100) .. '% \n'
    str[#str + 1] = ' + average rowUcol correct (VOC measure): ' .. (self.averageUnionValid * 100) .. '% \n'
    str[#str + 1] = ' + global correct: ' .. (self.totalValid * 100) .. '%'
    return table.concat(str)
  end
end
