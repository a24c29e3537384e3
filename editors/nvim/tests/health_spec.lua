-- :checkhealth engram reports the binary and the running server's binding,
-- and says what to do when the binary is missing.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')

local function health_text()
  vim.cmd('checkhealth engram')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  vim.cmd('bwipeout!')
  return text
end

h.run('nvim health', function()
  local root = h.workspace()
  local binary = vim.loop.fs_realpath(h.binary())
  require('engram').setup({ path = binary })
  vim.cmd('edit ' .. root .. '/src/auth.py')
  h.engram_client(0)

  local text = health_text()
  h.ok(text:find('OK:? binary: ' .. vim.pesc(binary)), 'the binary is found:\n' .. text)
  h.ok(text:find(vim.pesc(binary) .. ' %(engram [%w.%-]+ %(commit [%w%-]+%)%)'), 'its version is shown:\n' .. text)
  h.ok(text:find(vim.pesc(root) .. ': bound %(fingerprint %x+, server pid %d+%), 1 buffer attached'), 'the binding:\n' .. text)
  h.ok(not text:find('ERROR'), 'no errors:\n' .. text)

  require('engram').setup({ path = root .. '/missing/engram' })
  text = health_text()
  h.ok(text:find('ERROR:? \'' .. vim.pesc(root) .. '/missing/engram\' is not an executable'), 'the missing binary:\n' .. text)
  h.ok(text:find('Engram restart', 1, true), 'the advice:\n' .. text)
end)
