-- Starting engram through Neovim's LSP client: one server per workspace
-- root, attached to every file buffer under it; what the person is told when
-- the binary is missing or the server dies; and restarting.
local config = require('engram.config')
local compat = require('engram.compat')

local M = {}

local uv = vim.uv or vim.loop
local by_root = {} -- root -> client id
local stopping = {} -- client id -> true while we stop it on purpose
local told_missing = false

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = 'engram' })
end

-- The nearest ancestor of `path` holding one of the markers (.engram/, .git).
function M.find_root(path, markers)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  while dir and dir ~= '' do
    for _, marker in ipairs(markers) do
      if uv.fs_stat(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return nil
    end
    dir = parent
  end
  return nil
end

local function is_file_buffer(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then
    return false
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  -- URLs (fugitive://, oil://...) are not files engram can read.
  return name ~= '' and not name:match('^%a[%w+.-]*://')
end

-- Neovim 0.7 has no handler for window/showDocument (engram's "Open the claim
-- file" quick fix asks for it); newer versions bring their own.
local function show_document(_, result)
  if not result or not result.uri then
    return { success = false }
  end
  vim.schedule(function()
    vim.cmd('edit ' .. vim.fn.fnameescape(vim.uri_to_fname(result.uri)))
  end)
  return { success = true }
end

local function on_exit(root)
  return function(code, signal, client_id)
    if by_root[root] == client_id then
      by_root[root] = nil
    end
    if stopping[client_id] then
      stopping[client_id] = nil
      return
    end
    -- 0 and SIGTERM are how Neovim itself stops servers when it exits.
    if code == 0 and (signal == 0 or signal == 15) then
      return
    end
    local why = signal ~= 0 and ('signal ' .. signal) or ('exit code ' .. code)
    vim.schedule(function()
      notify(
        ('engram: the server for %s stopped unexpectedly (%s). Run :Engram restart to start it again; '
          .. ':checkhealth engram shows the binding.'):format(root, why),
        vim.log.levels.ERROR
      )
    end)
  end
end

local function on_attach(client, bufnr)
  local opts = config.get()
  if not opts.codelens or not client.server_capabilities or not client.server_capabilities.codeLensProvider then
    return
  end
  require('engram.lens').route_builtin_display()
  local group = vim.api.nvim_create_augroup('engram_codelens_' .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged', 'BufWritePost', 'CursorHold' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      require('engram.lens').refresh(bufnr)
    end,
  })
  require('engram.lens').refresh(bufnr)
end

function M.client_config(root, opts, binary)
  return {
    name = 'engram',
    cmd = config.command(opts, binary),
    cmd_cwd = root,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    init_options = { agent = config.agent(opts) },
    handlers = vim.lsp.handlers['window/showDocument'] == nil and { ['window/showDocument'] = show_document } or nil,
    commands = {
      -- The command engram's code lenses carry: list the memories it counts.
      ['engram.showMemories'] = function(command, ctx)
        local arg = command.arguments and command.arguments[1] or {}
        require('engram.commands').show_ids(ctx.bufnr, arg.ids or {})
      end,
    },
    on_attach = on_attach,
    on_exit = on_exit(root),
  }
end

-- Starts (or reuses) the server for the buffer's workspace and attaches it.
-- Returns the client id, or nil when the buffer is not in a workspace or the
-- binary is missing.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not is_file_buffer(bufnr) then
    return nil
  end
  local opts = config.get()
  local root = M.find_root(vim.api.nvim_buf_get_name(bufnr), opts.root_markers)
  if not root then
    return nil
  end
  local binary, name = config.binary(opts)
  if not binary then
    if not told_missing then
      told_missing = true
      notify(
        ("engram: cannot start the server: '%s' is not an executable file or a command on $PATH. "
          .. "Install engram or point the plugin at it (let g:engram = {'path': '/path/to/engram'}), "
          .. 'then run :Engram restart. :checkhealth engram shows what was found.'):format(name),
        vim.log.levels.ERROR
      )
    end
    return nil
  end
  local id = by_root[root]
  local existing = id and vim.lsp.get_client_by_id(id)
  if existing and not compat.is_stopped(existing) then
    vim.lsp.buf_attach_client(bufnr, id)
    return id
  end
  local cfg = M.client_config(root, opts, binary)
  if vim.lsp.start then
    id = vim.lsp.start(cfg, { bufnr = bufnr })
  else
    id = vim.lsp.start_client(cfg)
    if id then
      vim.lsp.buf_attach_client(bufnr, id)
    end
  end
  if not id then
    notify(('engram: the server for %s did not start; see :checkhealth engram.'):format(root), vim.log.levels.ERROR)
    return nil
  end
  by_root[root] = id
  return id
end

-- The engram client serving `bufnr`, else the only one running.
function M.for_buffer(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local attached = compat.clients(bufnr)
  if #attached > 0 then
    return attached[1]
  end
  local all = compat.clients()
  if #all == 1 then
    return all[1]
  end
  return nil
end

function M.roots()
  return vim.deepcopy(by_root)
end

-- Stops every engram server, then starts them again for the loaded file
-- buffers; also the way to retry after fixing a missing binary.
function M.restart()
  local running = compat.clients()
  for _, c in ipairs(running) do
    stopping[c.id] = true
    compat.stop(c)
  end
  vim.wait(3000, function()
    for _, c in ipairs(running) do
      if not compat.is_stopped(c) then
        return false
      end
    end
    return true
  end, 20)
  by_root = {}
  told_missing = false
  local started = 0
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and M.attach(bufnr) then
      started = started + 1
    end
  end
  return started
end

return M
