-- Locating memories in code: which claims sit on the symbol under the
-- cursor, and where a claim's anchor is now. Plain functions of engram's
-- answers (0-based LSP positions).
local M = {}

local function before_or_at(a, b)
  return a.line < b.line or (a.line == b.line and a.character <= b.character)
end

local function contains(range, pos)
  return before_or_at(range.start, pos) and before_or_at(pos, range['end'])
end

local function span(range)
  -- Lines dominate; characters only break ties within a line.
  return (range['end'].line - range.start.line) * 1e6 + (range['end'].character - range.start.character)
end

local function same(a, b)
  return a.start.line == b.start.line
    and a.start.character == b.start.character
    and a['end'].line == b['end'].line
    and a['end'].character == b['end'].character
end

-- The entries of engram/anchors on the innermost anchored symbol around
-- `pos`: a method's memories rather than its class's.
function M.at(entries, pos)
  local inner
  for _, e in ipairs(entries) do
    if e.range and e.range ~= vim.NIL and contains(e.range, pos) then
      if not inner or span(e.range) < span(inner.range) then
        inner = e
      end
    end
  end
  if not inner then
    return {}
  end
  return vim.tbl_filter(function(e)
    return e.range and e.range ~= vim.NIL and same(e.range, inner.range)
  end, entries)
end

-- Where a claim's symbol anchor is now, from engram/anchors for the file it
-- was anchored in: { path = relative path, range = LSP range or nil }. A
-- symbol that moved to another file is reported as "path#symbol".
function M.current(entries, claim_id, anchor_path)
  for _, e in ipairs(entries) do
    if e.claim_id == claim_id then
      local path = anchor_path
      if type(e.moved_to) == 'string' then
        local moved_path = e.moved_to:match('^(.-)#')
        if moved_path and moved_path ~= '' then
          path = moved_path
        end
      end
      return { path = path, range = e.range ~= vim.NIL and e.range or nil }
    end
  end
  return nil
end

-- Unverified memories first: they are the ones that need a decision.
function M.unverified_first(entries)
  local sorted = vim.deepcopy(entries)
  table.sort(sorted, function(a, b)
    local ka = a.anchor_state == 'intact' and 1 or 0
    local kb = b.anchor_state == 'intact' and 1 or 0
    if ka ~= kb then
      return ka < kb
    end
    return a.claim_id < b.claim_id
  end)
  return sorted
end

return M
