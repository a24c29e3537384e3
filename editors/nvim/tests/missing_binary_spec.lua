-- A missing binary gets one clear message naming what was looked for and
-- how to fix it; after fixing the path, `:Engram restart` starts engram.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')

h.run('nvim missing binary', function()
  local root = h.workspace()
  local missing = root .. '/no-such-dir/engram'
  require('engram').setup({ path = missing })

  vim.cmd('edit ' .. root .. '/src/auth.py')
  local msg = h.wait('the missing-binary message', function()
    return h.message('^engram: cannot start the server')
  end)
  h.eq(vim.log.levels.ERROR, msg.level, 'level')
  h.ok(msg.msg:find(missing, 1, true), 'the message names the path: ' .. msg.msg)
  h.ok(msg.msg:find(':Engram restart', 1, true), 'the message says how to retry: ' .. msg.msg)
  h.ok(msg.msg:find(':checkhealth engram', 1, true), 'the message points at the health check: ' .. msg.msg)
  h.eq({}, require('engram.compat').clients(), 'no server runs')

  -- A second file does not repeat the message.
  vim.cmd('edit ' .. root .. '/src/db.py')
  local count = 0
  for _, m in ipairs(h.messages) do
    if m.msg:find('^engram: cannot start the server') then
      count = count + 1
    end
  end
  h.eq(1, count, 'messages about the missing binary')

  -- A command says why it cannot answer.
  vim.cmd('Engram status')
  h.ok(h.message('^engram: no engram server for this buffer'), 'status without a server explains itself')

  -- Fixed: restart starts engram for both buffers.
  require('engram').setup({ path = h.binary() })
  vim.cmd('Engram restart')
  h.ok(h.message('^engram: started for 2 buffers'), 'restart reports the buffers it started engram for')
  local client = h.engram_client(vim.api.nvim_get_current_buf())
  h.eq(root, client.config.root_dir, 'root_dir')
  h.eq(1, #require('engram.compat').clients(), 'one server for the one root')
end)
