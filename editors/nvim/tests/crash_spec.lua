-- A server that dies is reported with the way back, and `:Engram restart`
-- brings it back with its diagnostics.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')

h.run('nvim crash', function()
  local root = h.workspace()
  require('engram').setup({ path = h.binary() })
  local compat = require('engram.compat')

  vim.cmd('edit ' .. root .. '/src/auth.py')
  local client = h.engram_client(0)
  local answer = compat.request_sync(client, 'engram/status', vim.empty_dict(), 5000, 0)
  local pid = answer and answer.result and answer.result.envelope.session.pid
  h.ok(type(pid) == 'number', 'engram/status names the server pid')

  vim.loop.kill(pid, 9)
  local msg = h.wait('the crash message', function()
    return h.message('^engram: the server for .* stopped unexpectedly')
  end)
  h.eq(vim.log.levels.ERROR, msg.level, 'level')
  h.ok(msg.msg:find(root, 1, true), 'the message names the workspace: ' .. msg.msg)
  h.ok(msg.msg:find('signal 9', 1, true), 'the message says how it ended: ' .. msg.msg)
  h.ok(msg.msg:find(':Engram restart', 1, true), 'the message says how to restart: ' .. msg.msg)
  h.wait('the dead client to go', function()
    return #compat.clients(0) == 0
  end)

  vim.cmd('Engram restart')
  local again = h.engram_client(0)
  h.ok(again.id ~= client.id, 'a new client')
  local status = compat.request_sync(again, 'engram/status', vim.empty_dict(), 5000, 0)
  h.ok(status and status.result and status.result.envelope.session.pid ~= pid, 'a new server answers')

  -- Stopping on purpose (restart) is not reported as a crash.
  local crashes = 0
  for _, m in ipairs(h.messages) do
    if m.msg:find('stopped unexpectedly') then
      crashes = crashes + 1
    end
  end
  h.eq(1, crashes, 'crash messages')
end)
