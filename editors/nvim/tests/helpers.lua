-- Shared by the headless Neovim tests: puts the plugin on 'runtimepath' and
-- loads it as Neovim would, copies the sample workspace to a temporary
-- directory, records notifications, and turns the test's outcome into the
-- exit code (CTest reads it).
--
-- Run as
--   nvim --headless -u NONE -i NONE -n -c "luafile tests/<name>_spec.lua" -c "cquit 2"
-- with ENGRAM_BINARY set to the engram binary. The spec exits on its own;
-- the trailing cquit catches an error before run() took over.
local M = {}

local this = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p')
M.tests_dir = vim.fn.fnamemodify(this, ':h')
M.plugin_dir = vim.fn.fnamemodify(M.tests_dir, ':h')
M.repo = vim.fn.fnamemodify(M.plugin_dir, ':h:h')

vim.opt.runtimepath:prepend(M.plugin_dir)
vim.cmd('runtime plugin/engram.lua')
-- The LSP log would go to the user's cache directory ('OFF' is newer than 0.7).
if not pcall(vim.lsp.set_log_level, 'OFF') then
  vim.lsp.set_log_level('ERROR')
end

M.messages = {}
vim.notify = function(msg, level)
  table.insert(M.messages, { msg = msg, level = level or vim.log.levels.INFO })
end

function M.binary()
  local b = vim.env.ENGRAM_BINARY
  assert(b and b ~= '', 'set ENGRAM_BINARY to the engram binary (CTest does)')
  return b
end

-- A fresh copy of fixtures/sample-workspace with a .git/ marker, and an
-- ENGRAM_HOME of its own; both live in Neovim's temporary directory, which
-- Neovim removes when it exits.
function M.workspace()
  local base = vim.fn.tempname()
  vim.fn.mkdir(base, 'p')
  local root = base .. '/ws'
  vim.fn.system({ 'cp', '-R', M.repo .. '/fixtures/sample-workspace', root })
  assert(vim.v.shell_error == 0, 'copying the fixture failed')
  vim.fn.mkdir(root .. '/.git', 'p')
  vim.fn.mkdir(base .. '/home', 'p')
  vim.env.ENGRAM_HOME = base .. '/home'
  -- The server reports its root resolved; so must the test.
  return vim.loop.fs_realpath(root)
end

function M.eq(want, got, what)
  if not vim.deep_equal(want, got) then
    error(('%s: expected %s, got %s'):format(what or 'value', vim.inspect(want), vim.inspect(got)), 2)
  end
end

function M.ok(cond, what)
  if not cond then
    error(what or 'assertion failed', 2)
  end
  return cond
end

-- Waits up to `ms` for `fn` to return a truthy value and returns it; fails
-- with `what` otherwise.
function M.wait(what, fn, ms)
  local value
  local done = vim.wait(ms or 10000, function()
    value = fn()
    return value and true or false
  end, 20)
  if not done then
    error('timed out waiting for ' .. what, 2)
  end
  return value
end

function M.message(pattern)
  for _, m in ipairs(M.messages) do
    if m.msg:find(pattern) then
      return m
    end
  end
  return nil
end

-- The engram client attached to `bufnr` once it has initialized.
function M.engram_client(bufnr)
  return M.wait('engram to attach', function()
    for _, c in ipairs(require('engram.compat').clients(bufnr)) do
      if c.initialized ~= false and c.server_capabilities and next(c.server_capabilities) then
        return c
      end
    end
  end)
end

-- Puts the cursor on the first occurrence of `text` in the current buffer.
function M.cursor_at(text)
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, true)
  for i, line in ipairs(lines) do
    local col = line:find(text, 1, true)
    if col then
      vim.api.nvim_win_set_cursor(0, { i, col - 1 })
      return i, col - 1
    end
  end
  error('no ' .. text .. ' in the buffer', 2)
end

-- Runs the test and exits Neovim: 0 on success, 1 (with the error and the
-- notifications so far on stderr) on failure.
function M.run(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    io.stdout:write(name .. ': ok\n')
    vim.cmd('qall!')
    return
  end
  local lines = { name .. ': FAILED', tostring(err), 'notifications:' }
  for _, m in ipairs(M.messages) do
    table.insert(lines, ('  [%d] %s'):format(m.level, m.msg))
  end
  io.stderr:write(table.concat(lines, '\n') .. '\n')
  vim.cmd('cquit 1')
end

return M
