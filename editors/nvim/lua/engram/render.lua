-- Text for what engram answers: quickfix rows, the status report, empty
-- answers and errors. Plain functions of the answers, so they are tested
-- without a server.
local M = {}

local function known(s)
  if s == nil or s == vim.NIL or s == '' then
    return 'unknown'
  end
  return tostring(s)
end

local function one_line(s, max)
  s = tostring(s or ''):gsub('%s+', ' '):gsub('^ ', ''):gsub(' $', '')
  if vim.fn.strchars(s) > max then
    return vim.fn.strcharpart(s, 0, max - 1) .. '…'
  end
  return s
end

-- "[drifted] gotcha validate-silent: text (project · 3 days ago · claude:maker · c-abc)"
-- The anchor state leads: drift is never silent.
function M.row(r)
  local head = ('[%s] %s'):format(known(r.anchor_state), known(r.kind))
  if r.label and r.label ~= vim.NIL and r.label ~= '' then
    head = head .. ' ' .. r.label
  end
  return ('%s: %s (%s · %s · %s · %s)'):format(
    head,
    one_line(r.text, 160),
    known(r.tier),
    known(r.age),
    known(r.source_agent),
    r.id
  )
end

-- One entry of engram/anchors (the claims on one file) in the same form.
function M.anchor_entry(e)
  return M.row({
    anchor_state = e.anchor_state,
    kind = 'memory',
    label = e.label,
    text = e.text,
    tier = 'project',
    age = e.age,
    source_agent = e.source_agent,
    id = e.claim_id,
  })
end

-- What an empty recall means: "nothing matched" is not "nothing is known".
function M.empty_recall(query, result)
  if result.why_empty and result.why_empty ~= vim.NIL then
    return 'engram: ' .. result.why_empty .. '.'
  end
  local live = 0
  for _, t in pairs(result.memory_exists or {}) do
    live = live + (t.live or 0)
  end
  if live == 0 then
    return 'engram: this workspace has no memories yet; :Engram remember records one.'
  end
  if query and query ~= '' then
    return ('engram: no memory matched "%s" (%d live in the stores).'):format(query, live)
  end
  return ('engram: no memory to list (%d live in the stores).'):format(live)
end

function M.status_lines(s)
  local e = s.envelope
  local h = s.anchor_health
  local lines = {
    ('engram: bound to %s (%s, fingerprint %s)'):format(e.binding.root, e.binding.source, e.binding.fingerprint),
    ('  server %s, pid %d; trust mode %s (%s)'):format(e.session.version, e.session.pid, e.trust_mode, e.status),
  }
  for _, st in ipairs(e.store) do
    local team = st.tier:sub(1, 5) == 'team:'
    local state = not st.exists and (team and 'not added on this machine (engram team add)' or 'no store yet')
      or (st.index_ready and 'index ready' or 'index not ready')
    table.insert(
      lines,
      ('  %-8s %d live, %d frontier, %d retracted, %d superseded; %d anchors; %s'):format(
        st.tier,
        st.claims.committed,
        st.claims.frontier,
        st.claims.retracted,
        st.claims.superseded,
        st.anchors,
        state
      )
    )
    -- A store in a git repository of its own: where it syncs, and how old
    -- the local clone's view is (answers come from it).
    local sync = st.sync
    if sync then
      local age = sync.age and (sync.age == 'just now' and sync.age or sync.age .. ' ago') or 'never'
      local line = ('           a clone of %s; last sync %s'):format(sync.remote, age)
      if sync.pending and #sync.pending > 0 then
        line = line .. ('; %d waiting to be pushed (engram sync)'):format(#sync.pending)
      end
      table.insert(lines, line)
      if sync.error then
        table.insert(lines, '           the last sync failed: ' .. sync.error)
      end
    end
  end
  table.insert(
    lines,
    ('  anchors  %d intact, %d drifted, %d moved, %d orphaned'):format(h.intact, h.drifted, h.moved, h.orphaned)
      .. ((h.unjudged or 0) > 0 and (', %d not judged'):format(h.unjudged) or '')
  )
  -- What could not be judged, and why (the envelope's counts by reason).
  local nj = (s.envelope or {}).not_judged
  if nj and nj.by_reason then
    local reasons = vim.tbl_keys(nj.by_reason)
    table.sort(reasons)
    for _, reason in ipairs(reasons) do
      table.insert(lines, ('  not judged %d (%s)'):format(nj.by_reason[reason], reason))
    end
  end
  local listed = s.broken_files or {}
  for _, b in ipairs(listed) do
    table.insert(lines, ('  broken   %s: %s'):format(b.file, b.problem))
  end
  -- The stores count every broken file; the list names only the first ones.
  local counted = 0
  for _, st in ipairs(e.store) do
    counted = counted + (st.broken_files or 0)
  end
  if counted > #listed then
    table.insert(lines, ('  broken   ... and %d more (engram check lists them)'):format(counted - #listed))
  end
  -- The project's reports (older servers send no inbox).
  if s.inbox then
    local i = s.inbox
    table.insert(
      lines,
      ('  inbox    %d open, %d in progress, %d answered, %d external'):format(
        i.open,
        i.in_progress,
        i.answered,
        i.external
      )
    )
  end
  return lines
end

local METHOD_NOT_FOUND = -32601

function M.error(err, method)
  if type(err) ~= 'table' then
    return 'engram: ' .. tostring(err)
  end
  if err.code == METHOD_NOT_FOUND then
    -- An engram older than the plugin: say what is missing.
    if method == 'engram/delegate' then
      return 'engram: this engram server does not support delegation (engram/delegate). '
        .. 'Update engram to delegate from Neovim.'
    end
    return ('engram: this engram server does not support %s. Update engram.'):format(method)
  end
  local kind = type(err.data) == 'table' and err.data.kind or nil
  local msg = 'engram: ' .. tostring(err.message or vim.inspect(err))
  if kind and kind ~= vim.NIL then
    msg = msg .. ' (' .. kind .. ')'
  end
  return msg
end

-- Where a claim's anchor says it is, as "path#symbol", "path:3-9" or "path".
function M.anchor(a)
  if not a then
    return nil
  end
  if a.symbol and a.symbol ~= vim.NIL then
    return a.path .. '#' .. a.symbol
  end
  if a.range and a.range ~= vim.NIL then
    return ('%s:%d-%d'):format(a.path, a.range.start_line, a.range.end_line)
  end
  return a.path
end

return M
