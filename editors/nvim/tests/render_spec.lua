-- The plain parts of the plugin, without a server: how rows, status, empty
-- answers and errors read, and which memories are "at the cursor".
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')

h.run('nvim render', function()
  local render = require('engram.render')
  local locate = require('engram.locate')

  local row = {
    id = 'c-abc',
    text = 'validate returns ok=False\nfor expired tokens',
    kind = 'gotcha',
    label = 'validate-silent',
    anchor_state = 'drifted',
    tier = 'project',
    age = '3 days ago',
    source_agent = 'claude:maker',
  }
  h.eq(
    '[drifted] gotcha validate-silent: validate returns ok=False for expired tokens '
      .. '(project · 3 days ago · claude:maker · c-abc)',
    render.row(row),
    'row'
  )
  -- Missing provenance reads "unknown"; JSON null is not a label.
  h.eq(
    '[unanchored] unknown: x (project · unknown · unknown · c-1)',
    render.row({ id = 'c-1', text = 'x', kind = '', label = vim.NIL, anchor_state = 'unanchored', tier = 'project' }),
    'row without provenance'
  )
  local long = render.row({ id = 'c-2', text = string.rep('é', 300), kind = 'fact', anchor_state = 'intact' })
  h.ok(long:find('é…', 1, true) and not long:find(string.rep('é', 161), 1, true), 'long text is cut by characters')

  h.eq('src/a.py#A.f', render.anchor({ path = 'src/a.py', symbol = 'A.f' }), 'symbol anchor')
  h.eq('src/a.sql:3-9', render.anchor({ path = 'src/a.sql', range = { start_line = 3, end_line = 9 } }), 'range anchor')
  h.eq('README', render.anchor({ path = 'README', symbol = vim.NIL }), 'file anchor')

  h.eq(
    "engram: 2 live claims exist, but none matched the query 'q'.",
    render.empty_recall('q', { why_empty = "2 live claims exist, but none matched the query 'q'" }),
    'empty recall with a reason'
  )
  h.ok(
    render.empty_recall('', { memory_exists = { project = { live = 0 } } }):find('no memories yet'),
    'empty store'
  )

  h.eq(
    'engram: this engram server does not support delegation (engram/delegate). Update engram to delegate from Neovim.',
    render.error({ code = -32601, message = "unknown method 'engram/delegate'" }, 'engram/delegate'),
    'delegate on an older server'
  )
  h.eq(
    'engram: text: matches rule github-token at 10-50 (SecretDetected)',
    render.error({ code = -32003, message = 'text: matches rule github-token at 10-50', data = { kind = 'SecretDetected' } }),
    'refusal'
  )

  local function entry(id, sl, el, state)
    return {
      claim_id = id,
      anchor_state = state or 'intact',
      range = { start = { line = sl, character = 4 }, ['end'] = { line = el, character = 10 } },
    }
  end
  local entries = { entry('class', 5, 30), entry('m-b', 10, 15, 'drifted'), entry('m-a', 10, 15), entry('other', 20, 25) }
  local ids = function(list)
    return vim.tbl_map(function(e)
      return e.claim_id
    end, list)
  end
  h.eq({ 'm-b', 'm-a' }, ids(locate.at(entries, { line = 12, character = 0 })), 'innermost symbol')
  h.eq({ 'class' }, ids(locate.at(entries, { line = 17, character = 0 })), 'enclosing symbol')
  h.eq({}, locate.at({ entries[3] }, { line = 10, character = 2 }), 'before the start column')
  h.eq({ 'm-b', 'm-a' }, ids(locate.unverified_first(locate.at(entries, { line = 12, character = 0 }))), 'drifted first')

  local moved = vim.tbl_extend('force', entry('c-1', 3, 9, 'moved'), { moved_to = 'src/pool.py#connect' })
  h.eq('src/pool.py', locate.current({ moved }, 'c-1', 'src/db.py').path, 'moved to another file')
  local renamed = vim.tbl_extend('force', entry('c-2', 3, 9, 'moved'), { moved_to = 'open_connection' })
  h.eq('src/db.py', locate.current({ renamed }, 'c-2', 'src/db.py').path, 'renamed in place')
  h.eq(nil, locate.current({ renamed }, 'c-9', 'src/db.py'), 'unknown claim')

  local markers = { '.engram', '.git' }
  local root = h.workspace()
  h.eq(root, require('engram.client').find_root(root .. '/src/auth.py', markers), 'root from .git')
  vim.fn.mkdir(root .. '/web/.engram', 'p')
  h.eq(root .. '/web', require('engram.client').find_root(root .. '/web/session.ts', markers), 'nearest marker wins')
  h.eq(nil, require('engram.client').find_root('/', markers), 'no root')

  -- Broken files: the stores count them all, the list names the first ones.
  local listed = {}
  for k = 1, 100 do
    listed[k] = { file = ('claims/c-%d.md'):format(k), problem = 'line 1: no header' }
  end
  local lines = render.status_lines({
    envelope = {
      binding = { root = '/w', source = 'initialize', fingerprint = '0123' },
      session = { version = '0.1.0', pid = 7 },
      trust_mode = 'full_trust',
      status = 'ok',
      store = {
        {
          tier = 'project',
          exists = true,
          index_ready = true,
          claims = { committed = 1, frontier = 0, retracted = 0, superseded = 0 },
          anchors = 0,
          broken_files = 250000,
        },
      },
    },
    anchor_health = { intact = 0, drifted = 0, moved = 0, orphaned = 0 },
    broken_files = listed,
  })
  h.eq('  broken   ... and 249900 more (engram check lists them)', lines[#lines], 'unlisted broken files')

  -- Team stores: each with its remote and the age of its last sync, or
  -- said not added on this machine.
  local claims = { committed = 2, frontier = 0, retracted = 0, superseded = 0 }
  lines = render.status_lines({
    envelope = {
      binding = { root = '/w', source = 'initialize', fingerprint = '0123' },
      session = { version = '0.1.0', pid = 7 },
      trust_mode = 'full_trust',
      status = 'ok',
      store = {
        {
          tier = 'team:platform',
          exists = true,
          index_ready = true,
          claims = claims,
          anchors = 0,
          sync = { remote = 'git@example.com:acme/platform.git', age = '3 hours', pending = { 'engram/promote-c-1' } },
        },
        {
          tier = 'team:billing',
          exists = false,
          claims = { committed = 0, frontier = 0, retracted = 0, superseded = 0 },
          anchors = 0,
          sync = { remote = '', pending = {} },
        },
      },
    },
    anchor_health = { intact = 0, drifted = 0, moved = 0, orphaned = 0 },
  })
  h.eq(
    '           a clone of git@example.com:acme/platform.git; last sync 3 hours ago; 1 waiting to be pushed (engram sync)',
    lines[4],
    'a team store: its remote, its last sync, what waits'
  )
  h.eq(true, lines[5]:find('not added on this machine', 1, true) ~= nil, 'a named team not added')

  -- Lenses: a line of their own above the symbol (indented as it is), but
  -- on line 1 at its end, where a line above would be scrolled out of view.
  local lens = require('engram.lens')
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, true, { 'import os', '', 'class A:', '\tdef f(self):', '\t\tpass' })
  local function at(line, title)
    return { range = { start = { line = line, character = 0 }, ['end'] = { line = line, character = 0 } },
      command = { title = title, command = 'engram.showMemories' } }
  end
  lens.display(buf, { at(0, '1 memory'), at(3, '2 memories · 1 drifted'), at(3, 'x'), { range = at(2, '').range } })
  local marks = vim.api.nvim_buf_get_extmarks(buf, lens.namespace, 0, -1, { details = true })
  h.eq(2, #marks, 'one mark per line with a titled lens')
  h.eq({ { '1 memory', 'LspCodeLens' } }, marks[1][4].virt_text, 'line 1: at its end')
  h.eq({ { { '        2 memories · 1 drifted | x', 'LspCodeLens' } } }, marks[2][4].virt_lines, 'above the method, indented')
  h.eq(true, marks[2][4].virt_lines_above, 'above, not below')
  lens.display(buf, {})
  h.eq({}, vim.api.nvim_buf_get_extmarks(buf, lens.namespace, 0, -1, {}), 'an empty answer clears them')
end)
