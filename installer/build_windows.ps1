<#
.SYNOPSIS
  Build the Shoebox Windows installer: dist\ShoeboxSetup-<version>.exe (PyInstaller + Inno Setup 6).

.DESCRIPTION
  Run from any folder on a Windows 10/11 x64 build machine with Python 3.11 (x64) and Inno Setup 6.3+:
      powershell -ExecutionPolicy Bypass -File installer\build_windows.ps1 [-Gpu] [-Venv DIR] [-Iscc PATH]

  1. makes a throwaway venv (or uses -Venv DIR), pip installs PyInstaller and the project
     (-Gpu adds the [gpu] extra, with torch pinned to 2.13.0: never an unpinned torch)
  2. renders resources\icons\shoebox.svg to build\icons\shoebox.ico (installer\make_icons.py)
  3. runs PyInstaller on installer\shoebox.spec -> build\pyinstaller\dist\shoebox
  4. renames the console exe shoebox-console.exe to Shoebox.com (see the spec's docstring) and checks
     "Shoebox.com --version" runs
  5. runs ISCC with the version read from pyproject.toml -> dist\ShoeboxSetup-<version>.exe
#>
[CmdletBinding()]
param(
    [switch]$Gpu,
    [string]$Venv = "",
    [string]$Python = "py",
    [string]$Iscc = ""
)
$ErrorActionPreference = "Stop"
$Repo = Split-Path -Parent $PSScriptRoot
Set-Location $Repo
$Start = Get-Date

function Invoke-Checked([string]$Exe, [string[]]$Arguments) {
    & $Exe @Arguments
    if ($LASTEXITCODE -ne 0) { throw "$Exe $($Arguments -join ' ') failed with exit code $LASTEXITCODE" }
}

# Python launcher "py -3.11", or a python.exe given with -Python
$PyArgs = @()
if ($Python -eq "py") { $PyArgs = @("-3.11") }
$Version = (& $Python @PyArgs installer\bundle.py version).Trim()
if ($LASTEXITCODE -ne 0 -or -not $Version) { throw "could not read the version from pyproject.toml" }
Write-Host "== Shoebox $Version"

# --- 1. build venv ---------------------------------------------------------------------------------
$TempVenv = $null
if (-not $Venv) {
    $TempVenv = Join-Path ([System.IO.Path]::GetTempPath()) ("shoebox-build-" + [guid]::NewGuid())
    $Venv = $TempVenv
}
try {
    if (-not (Test-Path "$Venv\Scripts\python.exe")) { Invoke-Checked $Python ($PyArgs + @("-m", "venv", $Venv)) }
    $Py = "$Venv\Scripts\python.exe"
    Invoke-Checked $Py @("-m", "pip", "install", "--quiet", "--upgrade", "pip")
    $SpecArgs = @()
    if ($Gpu) {
        $GpuReqs = & $Py installer\bundle.py gpu-requirements
        if (-not ($GpuReqs -contains "torch==2.13.0")) { throw "the [gpu] extra must pin torch==2.13.0" }
        # The CPU wheel comes from PyPI; for CUDA, IT installs the CUDA build of the same version first:
        #   pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cu128
        Invoke-Checked $Py @("-m", "pip", "install", "--quiet", "pyinstaller", "torch==2.13.0", "$Repo[gpu]")
        $SpecArgs = @("--", "--gpu")
    } else {
        Invoke-Checked $Py @("-m", "pip", "install", "--quiet", "pyinstaller", "$Repo")
    }

    # --- 2. icon -------------------------------------------------------------------------------------
    $env:QT_QPA_PLATFORM = "offscreen"
    Invoke-Checked $Py @("installer\make_icons.py", "build\icons")
    Remove-Item Env:\QT_QPA_PLATFORM

    # --- 3. PyInstaller ------------------------------------------------------------------------------
    if (Test-Path build\pyinstaller) { Remove-Item -Recurse -Force build\pyinstaller }
    Invoke-Checked $Py (@("-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
        "--distpath", "build\pyinstaller\dist", "--workpath", "build\pyinstaller\work",
        "installer\shoebox.spec") + $SpecArgs)
    $Bundle = "build\pyinstaller\dist\shoebox"

    # --- 4. console exe -> Shoebox.com ----------------------------------------------------------------
    Move-Item -Force "$Bundle\shoebox-console.exe" "$Bundle\Shoebox.com"
    if (-not (Test-Path "$Bundle\Shoebox.exe")) { throw "bundle incomplete: $Bundle\Shoebox.exe missing" }
    Invoke-Checked "$Bundle\Shoebox.com" @("--version")

    # --- 5. Inno Setup -------------------------------------------------------------------------------
    if (-not $Iscc) {
        $Iscc = @("${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe", "$env:ProgramFiles\Inno Setup 6\ISCC.exe",
                  "$env:LOCALAPPDATA\Programs\Inno Setup 6\ISCC.exe") | Where-Object { Test-Path $_ } | Select-Object -First 1
        if (-not $Iscc) { throw "ISCC.exe (Inno Setup 6) not found; pass -Iscc PATH" }
    }
    New-Item -ItemType Directory -Force dist | Out-Null
    $IsccArgs = @("/Qp", "/DAppVersion=$Version", "/DSourceDir=$Repo\$Bundle", "/DOutputDir=$Repo\dist",
                  "/DIconFile=$Repo\build\icons\shoebox.ico")
    if ($Gpu) { $IsccArgs += "/FShoeboxSetup-GPU-$Version" }
    Invoke-Checked $Iscc ($IsccArgs + @("installer\windows\shoebox.iss"))
} finally {
    if ($TempVenv -and (Test-Path $TempVenv)) { Remove-Item -Recurse -Force $TempVenv }
}

$Setup = Get-ChildItem dist\ShoeboxSetup-*$Version.exe | Sort-Object LastWriteTime | Select-Object -Last 1
$Seconds = [int]((Get-Date) - $Start).TotalSeconds
Write-Host ("== done in {0} s: {1} ({2:N0} MB)" -f $Seconds, $Setup.FullName, ($Setup.Length / 1MB))
Write-Host "silent install: $($Setup.Name) /VERYSILENT /SUPPRESSMSGBOXES /NORESTART"
