-- :checkhealth engram: the binary, and what each running server is bound to.
local M = {}

-- vim.health.start/ok/... on 0.9+; the health#report_* functions (wrapped by
-- the `health` module) on 0.7 and 0.8.
local function reporter()
  local h = vim.health
  if h and h.start then
    return h
  end
  local old = require('health')
  return {
    start = old.report_start,
    ok = old.report_ok,
    info = old.report_info,
    warn = old.report_warn,
    error = old.report_error,
  }
end

local function check_binary(h, config)
  local opts = config.get()
  local binary, name = config.binary(opts)
  if not binary then
    h.error(("'%s' is not an executable file or a command on $PATH"):format(name), {
      'Install engram (scripts/build.sh in an engram checkout builds build/engram) and put it on $PATH,',
      "or point the plugin at it: let g:engram = {'path': '/path/to/engram'}",
      "or require('engram').setup({ path = '/path/to/engram' }); then :Engram restart",
    })
    return
  end
  local out = vim.fn.system({ binary, '--version' })
  if vim.v.shell_error ~= 0 then
    h.error(('%s --version failed: %s'):format(binary, vim.trim(out)))
    return
  end
  h.ok(('binary: %s (%s)'):format(binary, vim.trim(out)))
  h.info('command: ' .. table.concat(config.command(opts, binary), ' '))
  h.info('writes are recorded as ' .. config.agent(opts))
end

local function check_servers(h, compat)
  local clients = compat.clients()
  if #clients == 0 then
    h.info('no engram server is running: open a file inside a directory holding .engram/ or .git/')
    return
  end
  for _, c in ipairs(clients) do
    local buffers = vim.tbl_count(c.attached_buffers or {})
    local answer = compat.request_sync(c, 'engram/status', vim.empty_dict(), 2000, nil)
    local status = answer and answer.result
    if status then
      local e = status.envelope
      local live = 0
      for _, s in ipairs(e.store) do
        live = live + s.claims.committed
      end
      local hl = status.anchor_health
      local msg = ('%s: bound (fingerprint %s, server pid %d), %d buffer%s attached, %d live memories, '
        .. '%d drifted, %d orphaned'):format(
        e.binding.root,
        e.binding.fingerprint,
        e.session.pid,
        buffers,
        buffers == 1 and '' or 's',
        live,
        hl.drifted,
        hl.orphaned
      )
      if e.binding.mismatch then
        h.warn(msg .. '; the binding does not match the requested root ' .. tostring(e.binding.requested_root))
      else
        h.ok(msg)
      end
    else
      local err = answer and answer.err and (answer.err.message or vim.inspect(answer.err)) or 'no answer'
      h.error(('%s: engram/status failed: %s'):format(c.config.root_dir, err), { 'Run :Engram restart' })
    end
  end
end

function M.check()
  local h = reporter()
  local config = require('engram.config')
  local compat = require('engram.compat')
  h.start('engram: Neovim')
  if vim.fn.has('nvim-0.7') == 1 then
    local v = vim.version()
    h.ok(('Neovim %d.%d.%d'):format(v.major, v.minor, v.patch))
  else
    h.error('Neovim 0.7 or newer is needed')
  end
  h.start('engram: binary')
  check_binary(h, config)
  h.start('engram: servers')
  check_servers(h, compat)
end

return M
